// `npm run bench:mcp`: the registry (its built process, as deployed) against a local SDK server
// made for the bench, in one run:
// 1. sync of a server with 500 tools (5 pages of tools/list), through the refresh route;
// 2. 100 concurrent tool calls through the registry's bus API (mcp.api.call_tool.v1 over NATS)
//    against the same 100 calls made directly with the SDK client.
// Targets: a 500-tool sync under 2 s; a proxied call adds at most 5 ms at p50.
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Agent, fetch as undiciFetch } from 'undici';
import { z } from 'zod';
import { generateCredentialKey } from '@wap/auth';
import {
  AppError,
  DIRECTORY_BUCKET,
  directoryKey,
  type ServiceRequest,
  BUS_APIS,
} from '@wap/contracts';
import { createDistributedPlatform, encodeJson, withNamespace } from '@wap/platform';
import { callApi, callRoute, serveApi } from '@wap/bus-protocol';
import {
  asBusPrincipal,
  busKeyEnvironment,
  createTestDatabase,
  freePort,
  removeNamespaceFromNats,
  testLogger,
  testNatsUrl,
} from '@wap/testing';
import { buildBundles, repoRoot } from '../shared/harness';
import { createProcessGroup, waitUntilReady } from '../shared/processes';

/** Starts the bench's MCP server in a process of its own and reads its address. */
async function startToolServerProcess(): Promise<{
  url: string;
  caPem: string;
  stop(): Promise<void>;
}> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'tool-server.ts'), String(TOOL_COUNT), String(PAGE_SIZE)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(buffered.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`tool server exited with ${code}`)));
  });
  const { url, caPem } = JSON.parse(line) as { url: string; caPem: string };
  return {
    url,
    caPem,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

const TOOL_COUNT = 500;
const EchoMessage = z.object({ message: z.string() });
const PAGE_SIZE = 100;
const SYNC_ROUNDS = 5;
const CONCURRENCY = 100;
const CALL_ROUNDS = 20;
const SEQUENTIAL_CALLS = 500;
const MAX_SYNC_MS = 2000;
const MAX_ADDED_P50_MS = 5;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function timed<T>(samples: number[], work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  return work().finally(() => samples.push(Number(process.hrtime.bigint() - started) / 1e6));
}

async function main(): Promise<void> {
  const logger = testLogger();
  const tools = await startToolServerProcess();
  const database = await createTestDatabase();
  // The service's production pool size (DATABASE_POOL_SIZE default), on a database of its own.
  const connected = await createDistributedPlatform({
    natsUrl: testNatsUrl(),
    databaseUrl: database.url,
    serviceName: 'bench-mcp',
    logger,
    poolSize: 10,
  });
  const namespace = `b${randomBytes(6).toString('hex')}`;
  const platform = withNamespace(connected, namespace);
  // Each side signs and verifies as in production: the bus hop below includes that cost.
  const gateway = await asBusPrincipal(platform, 'gateway', { logger });
  const chat = await asBusPrincipal(platform, 'chat', { logger });
  const echoing = await asBusPrincipal(platform, 'storage', {
    logger,
    subjects: [
      { subject: 'bench.api.echo.v1', server: 'storage', callers: ['storage'], user: false },
    ],
  });
  buildBundles(['mcp-registry']);
  const scratch = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
  const caFile = join(scratch, 'tool-server-ca.pem');
  writeFileSync(caFile, tools.caPem);
  const processes = createProcessGroup();
  process.on('exit', () => processes.killAllNow());
  const healthPort = await freePort();
  const registry = processes.start(
    'mcp-registry',
    [join(repoRoot, 'dist/apps/mcp-registry/src/main.js')],
    {
      ...busKeyEnvironment('mcp-registry'),
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      NATS_URL: testNatsUrl(),
      NATS_NAMESPACE: namespace,
      DATABASE_URL: database.url,
      HEALTH_PORT: String(healthPort),
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('bench'),
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: caFile,
      MCP_CONNECT_TIMEOUT_MS: '5000',
      MCP_SYNC_TIMEOUT_MS: '30000',
      MCP_CALL_TIMEOUT_MS: '30000',
    },
  );
  await waitUntilReady(`http://127.0.0.1:${healthPort}/readyz`, registry);
  const agent = new Agent({ connect: { ca: tools.caPem } });
  try {
    const workspaceId = randomUUID();
    const userId = randomUUID();
    const directory = await platform.kv.bucket(DIRECTORY_BUCKET);
    await directory.put(
      directoryKey(workspaceId),
      encodeJson({
        id: workspaceId,
        name: 'bench',
        deleted: false,
        members: { [userId]: 'owner' },
      }),
    );
    const request = (body: unknown, params: Record<string, string> = {}): ServiceRequest => ({
      requestId: randomUUID(),
      actor: {
        userId,
        subject: 'bench',
        email: 'bench@example.com',
        name: 'bench',
        platformAdmin: false,
      },
      params,
      query: {},
      headers: {},
      body,
    });
    const created = await callRoute(
      gateway.bus,
      'mcp.api.register_mcp_server.v1',
      request({ workspaceId, name: 'bench', serverUrl: tools.url }),
      { timeoutMs: 10_000 },
    );
    const serverId = (created.body as { mcp: { id: string } }).mcp.id;

    const syncMs: number[] = [];
    let discovered = 0;
    for (let round = 0; round < SYNC_ROUNDS;) {
      const started = process.hrtime.bigint();
      const reply = await callRoute(
        gateway.bus,
        'mcp.api.refresh_mcp_server.v1',
        { ...request(undefined, { id: serverId }), query: { workspace_id: workspaceId } },
        { timeoutMs: 30_000 },
      ).catch((error: unknown) => {
        // The sync that registration started may still be running: try again shortly.
        if (error instanceof AppError && error.code === 'MCP_SYNC_IN_PROGRESS') return null;
        throw error;
      });
      if (!reply) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      syncMs.push(Number(process.hrtime.bigint() - started) / 1e6);
      discovered = (reply.body as { tools: { discovered: number } }).tools.discovered;
      round += 1;
    }

    const direct = new Client(
      { name: 'bench-direct', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await direct.connect(
      new StreamableHTTPClientTransport(new URL(tools.url), {
        fetch: (input, init) =>
          undiciFetch(input, {
            ...(init as object),
            dispatcher: agent,
          }) as unknown as Promise<Response>,
      }),
    );
    // A direct caller lists the tools once (the SDK caches the definitions for its calls).
    await direct.listTools();
    const viaRegistry = () =>
      callApi(
        chat.bus,
        BUS_APIS.callTool,
        { workspaceId, userId, serverId, toolName: 'echo', arguments: { message: 'hi' } },
        { timeoutMs: 30_000 },
      );
    const directly = () => direct.callTool({ name: 'echo', arguments: { message: 'hi' } });
    // Warm up both paths (connections, pools, JIT).
    await Promise.all(Array.from({ length: CONCURRENCY }, () => viaRegistry()));
    await Promise.all(Array.from({ length: CONCURRENCY }, () => directly()));

    const sequentialRegistryMs: number[] = [];
    const sequentialDirectMs: number[] = [];
    for (let call = 0; call < SEQUENTIAL_CALLS; call += 1) {
      await timed(sequentialDirectMs, directly);
      await timed(sequentialRegistryMs, viaRegistry);
    }
    // The bus hop alone (an echo subject on the same platform): the floor of any proxied call.
    const echo = serveApi(
      echoing.bus,
      { subject: 'bench.api.echo.v1', request: EchoMessage, reply: z.unknown() },
      async (message) => message,
      {
        queue: 'bench',
        logger,
      },
    );
    const busMs: number[] = [];
    const registryMs: number[] = [];
    const directMs: number[] = [];
    for (let round = 0; round < CALL_ROUNDS; round += 1) {
      await Promise.all(Array.from({ length: CONCURRENCY }, () => timed(directMs, directly)));
      await Promise.all(Array.from({ length: CONCURRENCY }, () => timed(registryMs, viaRegistry)));
      await Promise.all(
        Array.from({ length: CONCURRENCY }, () =>
          timed(busMs, () =>
            callApi(
              echoing.bus,
              { subject: 'bench.api.echo.v1', request: z.unknown(), reply: EchoMessage },
              { message: 'hi' },
              {
                timeoutMs: 30_000,
              },
            ),
          ),
        ),
      );
    }
    await direct.close();
    await echo.unsubscribe();

    const syncP50 = percentile(syncMs, 50);
    const added = percentile(registryMs, 50) - percentile(directMs, 50);
    const rows = [
      ['sync of 500 tools (refresh route)', `${discovered} tools`, syncP50, percentile(syncMs, 99)],
      [
        'one call at a time, direct SDK client',
        `${sequentialDirectMs.length} calls`,
        percentile(sequentialDirectMs, 50),
        percentile(sequentialDirectMs, 99),
      ],
      [
        'one call at a time, via the registry',
        `${sequentialRegistryMs.length} calls`,
        percentile(sequentialRegistryMs, 50),
        percentile(sequentialRegistryMs, 99),
      ],
      [
        'bus round trip alone (echo subject)',
        `${busMs.length} calls`,
        percentile(busMs, 50),
        percentile(busMs, 99),
      ],
      [
        'tool call, direct SDK client',
        `${directMs.length} calls`,
        percentile(directMs, 50),
        percentile(directMs, 99),
      ],
      [
        'tool call, via mcp.api.call_tool.v1',
        `${registryMs.length} calls`,
        percentile(registryMs, 50),
        percentile(registryMs, 99),
      ],
    ];
    console.log(
      `\nMCP registry bench (${CONCURRENCY} concurrent calls per round, ${CALL_ROUNDS} rounds)\n`,
    );
    console.log('what'.padEnd(40) + 'n'.padEnd(14) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10));
    for (const [what, n, p50, p99] of rows) {
      console.log(
        String(what).padEnd(40) +
          String(n).padEnd(14) +
          Number(p50).toFixed(1).padStart(10) +
          Number(p99).toFixed(1).padStart(10),
      );
    }
    console.log(
      `\nsync p50 ${syncP50.toFixed(0)} ms (target < ${MAX_SYNC_MS}): ${syncP50 < MAX_SYNC_MS ? 'met' : 'MISSED'}` +
        `\nadded by the registry at p50 ${added.toFixed(2)} ms (target <= ${MAX_ADDED_P50_MS}): ${added <= MAX_ADDED_P50_MS ? 'met' : 'MISSED'}\n`,
    );
  } finally {
    await processes.stopAll();
    rmSync(scratch, { recursive: true, force: true });
    await agent.close();
    await connected.close();
    await removeNamespaceFromNats(testNatsUrl(), namespace);
    await database.drop();
    await tools.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
