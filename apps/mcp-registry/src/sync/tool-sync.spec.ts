import path from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { generateCredentialKey, parseCredentialKeys } from '@wap/auth';
import { createGuardedFetch, parseAllowlist, type GuardedFetch } from '@wap/egress';
import type { Platform } from '@wap/platform';
import { startTestRuntime, testLogger, type RuntimeUnderTest } from '@wap/testing';
import { sealAuth, sealHeaders } from '../servers/credentials';
import { createServerRepository, type ServerRepository } from '../servers/repository';
import {
  startProgrammableMcpServer,
  type ProgrammableMcpServer,
  type TestTool,
} from '../testing/programmable-mcp-server';
import { createConnectionPool } from '../tools/connection-pool';
import { createConnect } from './connections';
import { createToolSync, toolHash, type ToolSync } from './tool-sync';

const WORKSPACE = '33333333-3333-4333-8333-333333333333';
const USER = '44444444-4444-4444-8444-444444444444';
/** These servers use no connected accounts: asking for a token is a defect of the test. */
const noAccounts = {
  accessToken: () => Promise.reject(new Error('no connected accounts in this test')),
};
const keyring = parseCredentialKeys(generateCredentialKey('sync'));

function tools(count: number, description = 'does things'): TestTool[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `tool_${index}`,
    description: `${description} ${index}`,
    inputSchema: { properties: { value: { type: 'string' } } },
  }));
}

describe('tool sync against a real MCP server and PostgreSQL', () => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let repository: ServerRepository;
  let toolSync: ToolSync;
  let guardedFetch: GuardedFetch;
  let mcp: ProgrammableMcpServer;
  const logger = testLogger();

  beforeAll(async () => {
    runtime = await startTestRuntime('distributed', { serviceName: 'mcp-sync', logger });
    ({ platform } = runtime);
    await platform.sql.migrate({
      schema: 'mcp_registry',
      migrationsFolder: path.join(__dirname, '../../migrations'),
    });
    repository = createServerRepository({
      db: platform.sql.db,
      clock: platform.clock,
      ids: platform.ids,
    });
    guardedFetch = createGuardedFetch({ allowlist: parseAllowlist('127.0.0.1') });
    const connect = createConnect({
      keyring,
      envAllowlist: new Set(),
      egressAllowlist: parseAllowlist('127.0.0.1'),
      environment: {},
      accounts: noAccounts,
      fetch: guardedFetch,
      connectTimeoutMs: 5000,
      logger,
    });
    toolSync = createToolSync({
      repository,
      locks: await platform.kv.bucket('mcp-sync-locks', { ttlMs: 120_000 }),
      connect,
      syncTimeoutMs: 10_000,
      clock: platform.clock,
      logger,
    });
    mcp = await startProgrammableMcpServer();
  });
  afterAll(async () => {
    await toolSync.drain();
    await mcp.stop();
    await guardedFetch.close();
    await runtime.cleanup();
  });

  async function newServer(url = mcp.url) {
    const serverId = repository.newId();
    const ids = { workspaceId: WORKSPACE, serverId };
    return repository.insert(
      serverId,
      {
        workspaceId: WORKSPACE,
        name: 'programmable',
        description: '',
        serverUrl: url,
        accessMode: 'everyone',
        accessibleTo: [],
        createdBy: USER,
      },
      {
        auth: sealAuth(undefined, { keyring, envAllowlist: new Set() }, ids),
        headers: sealHeaders({}, keyring, ids),
      },
    );
  }

  test('reads every page of tools/list and stores each tool with its hash', async () => {
    mcp.tools = tools(7);
    mcp.pageSize = 2;
    const requestsBefore = mcp.listRequests;
    const server = await newServer();
    const result = await toolSync.run(server, USER);
    expect(result).toEqual({ discovered: 7, synced: 7, errors: [], failed: false });
    expect(mcp.listRequests - requestsBefore).toBe(4);
    const stored = await repository.toolsOf([server.id]);
    expect(stored.map((tool) => tool.name).sort()).toEqual(
      mcp.tools.map((tool) => tool.name).sort(),
    );
    const first = stored.find((tool) => tool.name === 'tool_0');
    expect(first?.hash).toBe(
      toolHash({
        name: 'tool_0',
        description: 'does things 0',
        inputSchema: { type: 'object', properties: { value: { type: 'string' } } },
      }),
    );
    const record = await repository.find(server.id);
    expect(record).toMatchObject({
      syncStatus: 'succeeded',
      transport: 'streamable_http',
      syncErrors: [],
    });
    expect(record?.lastSyncedAt).toBeInstanceOf(Date);
  });

  test('a changed tool is visible as changed, the enabled flag survives, an empty listing wipes nothing', async () => {
    mcp.tools = tools(3);
    mcp.pageSize = 100;
    const server = await newServer();
    await toolSync.run(server, USER);
    const before = await repository.toolsOf([server.id]);
    const byName = (rows: typeof before, name: string) => rows.find((tool) => tool.name === name);
    await repository.setToolEnabled(byName(before, 'tool_1')?.id ?? '', false);

    await new Promise((resolve) => setTimeout(resolve, 5));
    mcp.tools = tools(3).map((tool) =>
      tool.name === 'tool_2' ? { ...tool, description: 'now does other things' } : tool,
    );
    await toolSync.run(server, USER);
    const after = await repository.toolsOf([server.id]);
    expect(byName(after, 'tool_1')?.enabled).toBe(false);
    expect(byName(after, 'tool_2')?.hash).not.toBe(byName(before, 'tool_2')?.hash);
    expect(byName(after, 'tool_2')?.changedAt.getTime()).toBeGreaterThan(
      byName(before, 'tool_2')?.changedAt.getTime() ?? 0,
    );
    expect(byName(after, 'tool_0')?.changedAt).toEqual(byName(before, 'tool_0')?.changedAt);
    expect(byName(after, 'tool_0')?.lastDiscoveredAt.getTime()).toBeGreaterThan(
      byName(before, 'tool_0')?.lastDiscoveredAt.getTime() ?? 0,
    );

    mcp.tools = [];
    expect(await toolSync.run(server, USER)).toEqual({
      discovered: 0,
      synced: 0,
      errors: [],
      failed: false,
    });
    expect(await repository.toolsOf([server.id])).toHaveLength(3);

    mcp.tools = tools(2);
    await toolSync.run(server, USER);
    expect((await repository.toolsOf([server.id])).map((tool) => tool.name).sort()).toEqual([
      'tool_0',
      'tool_1',
    ]);
  });

  test('a second sync of the same server while one runs is refused', async () => {
    mcp.tools = tools(2);
    const server = await newServer();
    const [first, second] = await Promise.allSettled([
      toolSync.run(server, USER),
      toolSync.run(server, USER),
    ]);
    const outcomes = [first, second].map((outcome) =>
      outcome.status === 'fulfilled' ? 'ran' : (outcome.reason as { code?: string }).code,
    );
    expect(outcomes.sort()).toEqual(['MCP_SYNC_IN_PROGRESS', 'ran']);
  });

  test('a change notification during a tool call triggers a re-sync', async () => {
    mcp.tools = tools(1);
    const server = await newServer();
    await toolSync.run(server, USER);
    const resynced: string[] = [];
    const pool = createConnectionPool({
      connect: createConnect({
        keyring,
        envAllowlist: new Set(),
        egressAllowlist: parseAllowlist('127.0.0.1'),
        environment: {},
        accounts: noAccounts,
        fetch: guardedFetch,
        connectTimeoutMs: 5000,
        logger,
      }),
      idleMs: 10_000,
      logger,
      onToolsChanged: (changed, userId) => {
        resynced.push(changed.id);
        toolSync.runInBackground(changed, userId);
      },
    });
    mcp.tools = tools(4);
    mcp.announceChangeOnNextCall = true;
    const started = Date.now();
    const result = await pool.with(server, USER, (connection) =>
      connection.client.callTool({ name: 'tool_0', arguments: { value: 'x' } }),
    );
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ tool: 'tool_0', args: { value: 'x' } }) },
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    const deadline = Date.now() + 5000;
    while ((await repository.toolsOf([server.id])).length < 4) {
      if (Date.now() > deadline) throw new Error(`no re-sync; notified for ${resynced.join(',')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(resynced).toEqual([server.id]);
    await pool.closeAll();
  });

  test('a server that does not answer is recorded as failed with a safe message', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const server = await newServer(`http://127.0.0.1:${port}/mcp`);
    const result = await toolSync.run(server, USER);
    expect(result).toEqual({
      discovered: 0,
      synced: 0,
      errors: [{ message: 'The server could not be reached (ECONNREFUSED)' }],
      failed: true,
    });
    expect(await repository.find(server.id)).toMatchObject({
      syncStatus: 'failed',
      syncErrors: ['The server could not be reached (ECONNREFUSED)'],
    });
  });
});
