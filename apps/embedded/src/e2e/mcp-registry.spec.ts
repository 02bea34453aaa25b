import { sql } from 'drizzle-orm';
import { type McpServerView, type McpToolRecord, BUS_APIS } from '@wap/contracts';
import { AppError } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import { BASIC_PASSWORD, BASIC_USER } from '@wap/testing';
import {
  BEARER_TOKEN,
  HEADER_SECRET,
  registrySettingsFor,
  startMcpTestServers,
  type McpTestServers,
} from './mcp-test-servers';
import {
  createWorkspace,
  http,
  RUNTIMES,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

/** The environment variable the env_var auth type may read in these tests. */
const TOKEN_VARIABLE = 'MCP_TEST_BEARER_TOKEN';

describe.each(RUNTIMES)('the MCP registry on the %s runtime', (runtime) => {
  let servers: McpTestServers;
  let stack: TestStack;
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    servers = await startMcpTestServers();
    stack = await startStack(runtime, {
      services: {
        mcpRegistry: registrySettingsFor(
          servers,
          { envAllowlist: new Set([TOKEN_VARIABLE]), callTimeoutMs: 10_000 },
          { [TOKEN_VARIABLE]: BEARER_TOKEN, HOME: '/should-not-be-readable' },
        ),
      },
    });
    owner = await person('owner');
    workspaceId = await newWorkspace(owner);
  });
  afterAll(async () => {
    await stack?.stop();
    await servers?.stop();
  });

  const person = (label: string, email?: string) => signedInPerson(stack, label, email);
  const newWorkspace = (who: Person) => createWorkspace(stack, who, 'mcp workspace');

  async function addMember(toWorkspace: string, label: string): Promise<Person> {
    const email = uniqueEmail(label);
    const added = await http(`${stack.url}/workspaces/${toWorkspace}/members`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { email, role: 'member' },
    });
    expect(added.status).toBe(201);
    return person(label, email);
  }

  async function register(body: Record<string, unknown>, who: Person = owner) {
    return http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie: who.cookie,
      body: { workspaceId, serverType: 'custom', description: 'test server', ...body },
    });
  }

  async function registered(body: Record<string, unknown>, who: Person = owner): Promise<string> {
    const response = await register(body, who);
    expect(response.status).toBe(201);
    return (response.body as { mcp: { id: string } }).mcp.id;
  }

  /** Waits for the asynchronous sync that follows registration. */
  async function settled(serverId: string, who: Person = owner): Promise<McpServerView> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const response = await http(`${stack.url}/mcp-registry/${serverId}`, { cookie: who.cookie });
      expect(response.status).toBe(200);
      const view = (response.body as { mcp: McpServerView }).mcp;
      if (view.sync_status === 'succeeded' || view.sync_status === 'failed') return view;
      if (Date.now() > deadline) throw new Error(`sync of ${serverId} did not finish`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function toolsOf(who: Person, query = `workspaceId=${workspaceId}`) {
    const response = await http(`${stack.url}/mcp-registry/tools?${query}`, { cookie: who.cookie });
    return response;
  }

  test('registers a server over Streamable HTTP behind TLS: 201 Shape A, then its tools are synced', async () => {
    const response = await register({
      name: 'everything',
      serverUrl: `${servers.origin}/open/mcp`,
      headers: { 'X-Team': 'automation' },
    });
    expect(response.status).toBe(201);
    const mcp = (response.body as { mcp: Record<string, unknown> }).mcp;
    expect(Object.keys(mcp).sort()).toEqual(
      [
        'access_mode',
        'created_at',
        'description',
        'enabled',
        'id',
        'name',
        'server_type',
        'server_url',
        'workspace_id',
      ].sort(),
    );
    expect(mcp).toMatchObject({
      workspace_id: workspaceId,
      name: 'everything',
      description: 'test server',
      server_url: `${servers.origin}/open/mcp`,
      server_type: 'custom',
      enabled: true,
      access_mode: 'everyone',
    });
    expect(response.text).not.toContain('automation');

    const view = await settled(mcp['id'] as string);
    expect(view).toMatchObject({
      sync_status: 'succeeded',
      sync_errors: [],
      transport: 'streamable_http',
      header_names: ['X-Team'],
    });

    const tools = await toolsOf(owner);
    expect(tools.status).toBe(200);
    const body = tools.body as { data: McpToolRecord[]; count: number };
    const echo = body.data.find((tool) => tool.name === 'echo' && tool.mcpServerId === mcp['id']);
    expect(echo).toMatchObject({
      mcpServerName: 'everything',
      isEnabled: true,
      description: expect.any(String),
      inputSchema: expect.objectContaining({ type: 'object' }),
      lastDiscoveredAt: expect.any(String),
    });
    expect(body.count).toBe(body.data.length);

    const grouped = await toolsOf(owner, `workspaceId=${workspaceId}&groupByServer=true`);
    const groups = (
      grouped.body as { data: Record<string, { server: { name: string }; tools: McpToolRecord[] }> }
    ).data;
    expect(groups[mcp['id'] as string]?.server.name).toBe('everything');
    expect(groups[mcp['id'] as string]?.tools.map((tool) => tool.name)).toContain('echo');
  });

  test('refresh: form 1 for the creator, form 2 for another member; workspace from query, alias, header, body or the first workspace', async () => {
    const serverId = await registered({
      name: 'refreshable',
      serverUrl: `${servers.origin}/open/mcp`,
    });
    await settled(serverId);
    const url = `${stack.url}/mcp-registry/${serverId}/refresh`;

    const byCreator = await http(url, { method: 'POST', cookie: owner.cookie });
    expect(byCreator.status).toBe(200);
    const form1 = byCreator.body as {
      mcp: Record<string, unknown>;
      tools: Record<string, unknown>;
    };
    expect(form1.mcp).toMatchObject({
      id: serverId,
      workspace_id: workspaceId,
      is_enabled: true,
      accessible_to: [],
      created_by: owner.userId,
      updated_at: expect.any(String),
    });
    expect(form1.tools).toEqual({
      discovered: expect.any(Number),
      synced: expect.any(Number),
      errors: [],
    });
    expect(form1.tools['discovered']).toBeGreaterThan(5);
    expect(form1.tools['synced']).toBe(form1.tools['discovered']);

    const member = await addMember(workspaceId, 'refresher');
    const byMember = await http(`${url}?workspace_id=${workspaceId}`, {
      method: 'POST',
      cookie: member.cookie,
    });
    expect(byMember.status).toBe(200);
    const form2 = byMember.body as { mcp: Record<string, unknown>; sync: Record<string, unknown> };
    expect(form2.mcp).toMatchObject({ id: serverId, server_type: 'custom', enabled: true });
    expect(form2.mcp).not.toHaveProperty('accessible_to');
    expect(form2.sync).toEqual({
      discovered: form1.tools['discovered'],
      synced: form1.tools['synced'],
      errors: [],
    });

    // The member's first workspace is the owner's: no selection works; another workspace does not.
    const other = await newWorkspace(member);
    for (const [label, options] of [
      ['query alias', { path: `?workspaceId=${other}` }],
      ['header', { path: '', headers: { 'x-workspace-id': other } }],
      ['body', { path: '', body: { workspaceId: other } }],
    ] as const) {
      const response = await http(`${url}${options.path}`, {
        method: 'POST',
        cookie: member.cookie,
        headers: 'headers' in options ? options.headers : undefined,
        body: 'body' in options ? options.body : undefined,
      });
      expect({ label, status: response.status, body: response.body }).toEqual({
        label,
        status: 404,
        body: { error: 'MCP server not found', code: 'NOT_FOUND' },
      });
    }
    const viaHeader = await http(url, {
      method: 'POST',
      cookie: member.cookie,
      headers: { 'x-workspace-id': workspaceId },
    });
    expect(viaHeader.status).toBe(200);
    const viaBody = await http(url, {
      method: 'POST',
      cookie: member.cookie,
      body: { workspaceId },
    });
    expect(viaBody.status).toBe(200);
    const implicit = await http(url, { method: 'POST', cookie: member.cookie });
    expect(implicit.status).toBe(200);
    // The query wins over the header.
    const queryFirst = await http(`${url}?workspace_id=${other}`, {
      method: 'POST',
      cookie: member.cookie,
      headers: { 'x-workspace-id': workspaceId },
    });
    expect(queryFirst.status).toBe(404);

    const missing = await http(
      `${stack.url}/mcp-registry/00000000-0000-4000-8000-000000000000/refresh`,
      {
        method: 'POST',
        cookie: owner.cookie,
      },
    );
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'MCP server not found', code: 'NOT_FOUND' });
  });

  test('calls a tool through the bus API, as a user the access mode allows', async () => {
    const serverId = await registered({
      name: 'callable',
      serverUrl: `${servers.origin}/open/mcp`,
    });
    await settled(serverId);
    const reply = await callApi(
      (await stack.as('chat')).bus,
      BUS_APIS.callTool,
      {
        workspaceId,
        userId: owner.userId,
        serverId,
        toolName: 'echo',
        arguments: { message: 'hello' },
      },
      { timeoutMs: 15_000 },
    );
    expect(reply).toEqual({ isError: false, content: [{ type: 'text', text: 'Echo: hello' }] });

    const listed = await callApi(
      (await stack.as('chat')).bus,
      BUS_APIS.listTools,
      { workspaceId, userId: owner.userId },
      { timeoutMs: 5000 },
    );
    expect(listed.tools.some((tool) => tool.serverId === serverId && tool.name === 'echo')).toBe(
      true,
    );
  });

  test('a pooled session the server forgot (404) is replaced and the call retried once', async () => {
    const serverId = await registered({
      name: 'expiring',
      serverUrl: `${servers.origin}/expiring/mcp`,
    });
    await settled(serverId);
    const chat = await stack.as('chat');
    const call = (message: string) =>
      callApi(
        chat.bus,
        BUS_APIS.callTool,
        { workspaceId, userId: owner.userId, serverId, toolName: 'echo', arguments: { message } },
        { timeoutMs: 15_000 },
      );
    expect((await call('first')).content).toEqual([{ type: 'text', text: 'Echo: first' }]);
    const before = servers.seen.length;
    servers.expireSessionOnce();
    expect((await call('second')).content).toEqual([{ type: 'text', text: 'Echo: second' }]);
    expect(servers.seen.slice(before).some((entry) => entry.status === 404)).toBe(true);
  });

  test('falls back to the legacy SSE transport when the URL is an SSE endpoint (404 on POST)', async () => {
    const serverId = await registered({ name: 'legacy sse', serverUrl: `${servers.origin}/sse` });
    const view = await settled(serverId);
    expect(view).toMatchObject({ sync_status: 'succeeded', transport: 'sse' });
    const reply = await callApi(
      (await stack.as('chat')).bus,
      BUS_APIS.callTool,
      {
        workspaceId,
        userId: owner.userId,
        serverId,
        toolName: 'echo',
        arguments: { message: 'over sse' },
      },
      { timeoutMs: 15_000 },
    );
    expect(reply.content).toEqual([{ type: 'text', text: 'Echo: over sse' }]);
  });

  test.each([
    ['a bearer token (direct)', '/bearer/mcp', { value: BEARER_TOKEN }],
    [
      'a bearer token with an explicit prefix',
      '/bearer/mcp',
      { type: 'direct', value: BEARER_TOKEN, prefix: 'Bearer' },
    ],
    [
      'a custom header without prefix',
      '/header/mcp',
      { headerName: 'X-Api-Key', value: HEADER_SECRET, prefix: '' },
    ],
    ['HTTP basic auth', '/basic/mcp', { username: BASIC_USER, password: BASIC_PASSWORD }],
    [
      'a token from an allow-listed environment variable',
      '/bearer/mcp',
      { type: 'env_var', value: TOKEN_VARIABLE },
    ],
  ])('syncs a server that needs %s', async (_label, path, authConfig) => {
    const serverId = await registered({
      name: `auth ${path}`,
      serverUrl: `${servers.origin}${path}`,
      authConfig,
    });
    const view = await settled(serverId);
    expect(view).toMatchObject({
      sync_status: 'succeeded',
      sync_errors: [],
      transport: 'streamable_http',
    });
  });

  test('wrong credentials: the 401 is recorded, and no fallback to SSE is tried', async () => {
    const before = servers.seen.length;
    const serverId = await registered({
      name: 'wrong token',
      serverUrl: `${servers.origin}/bearer/mcp`,
      authConfig: { value: 'not-the-token' },
    });
    const view = await settled(serverId);
    expect(view).toMatchObject({
      sync_status: 'failed',
      sync_errors: ['The server refused the credentials (HTTP 401)'],
    });
    const attempts = servers.seen
      .slice(before)
      .filter((entry) => entry.path.startsWith('/bearer/'));
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((entry) => entry.method === 'POST' && entry.status === 401)).toBe(true);
  });

  test('a server that redirects to another origin gets none of the credentials there', async () => {
    const before = servers.elsewhereSeen.length;
    const serverId = await registered({
      name: 'moved away',
      serverUrl: `${servers.origin}/moved/mcp`,
      headers: { 'X-Extra': HEADER_SECRET },
      authConfig: { value: BEARER_TOKEN },
    });
    // The MCP client follows no redirect out of the server's origin; the guarded fetch beneath it
    // would strip every credential header if it did.
    const view = await settled(serverId);
    expect(view).toMatchObject({
      sync_status: 'failed',
      sync_errors: ['The server answered HTTP 307'],
    });
    const carried = servers.elsewhereSeen
      .slice(before)
      .filter((request) => request.headers['authorization'] || request.headers['x-extra']);
    expect(carried).toEqual([]);
  });

  test('a server that is down: the sync error is recorded and refresh reports it', async () => {
    const serverId = await registered({ name: 'down', serverUrl: servers.downUrl });
    const view = await settled(serverId);
    expect(view.sync_status).toBe('failed');
    expect(view.sync_errors).toEqual(['The server could not be reached (ECONNREFUSED)']);
    const refresh = await http(`${stack.url}/mcp-registry/${serverId}/refresh`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(refresh.status).toBe(502);
    expect(refresh.body).toEqual({
      error: 'Tool sync failed',
      code: 'MCP_SYNC_FAILED',
      details: { errors: ['The server could not be reached (ECONNREFUSED)'] },
    });
  });

  test('a refresh while a sync of the same server runs answers 409', async () => {
    const serverId = await registered({ name: 'slow', serverUrl: `${servers.origin}/slow/mcp` });
    const refresh = await http(`${stack.url}/mcp-registry/${serverId}/refresh`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(refresh.status).toBe(409);
    expect(refresh.body).toEqual({
      error: 'A tool sync of this MCP server is already running',
      code: 'MCP_SYNC_IN_PROGRESS',
    });
    await settled(serverId);
  });

  test.each([
    [{ serverUrl: 'http://example.com/mcp' }, 400, 'INSECURE_SERVER_URL'],
    [{ serverUrl: 'https://10.1.2.3/mcp' }, 400, 'SERVER_URL_NOT_ALLOWED'],
    [{ serverUrl: 'https://169.254.169.254/mcp' }, 400, 'SERVER_URL_NOT_ALLOWED'],
    [{ serverUrl: 'https://[::1]/mcp' }, 400, 'SERVER_URL_NOT_ALLOWED'],
    [{ serverUrl: 'not a url' }, 400, 'VALIDATION_ERROR'],
    [{ serverUrl: 'https://example.com/mcp', name: '' }, 400, 'VALIDATION_ERROR'],
    [{ serverUrl: 'https://example.com/mcp', accessMode: 'anyone' }, 400, 'VALIDATION_ERROR'],
    [{ serverUrl: 'https://example.com/mcp', headers: { Host: 'evil' } }, 400, 'VALIDATION_ERROR'],
    [
      { serverUrl: 'https://example.com/mcp', authConfig: { type: 'env_var', value: 'HOME' } },
      400,
      'VALIDATION_ERROR',
    ],
    [
      { serverUrl: 'https://example.com/mcp', authConfig: { type: 'basic', username: 'u' } },
      400,
      'VALIDATION_ERROR',
    ],
    [{ serverUrl: 'https://example.com/mcp', authConfig: { token: 'x' } }, 400, 'VALIDATION_ERROR'],
  ])('refuses %j with %i %s', async (fields, status, code) => {
    const response = await register({ name: 'refused', ...fields });
    expect(response.status).toBe(status);
    expect((response.body as { code: string }).code).toBe(code);
  });

  test('credentials are never stored in clear text', async () => {
    const serverId = await registered({
      name: 'secret keeper',
      serverUrl: `${servers.origin}/bearer/mcp`,
      headers: { 'X-Extra': HEADER_SECRET },
      authConfig: { value: BEARER_TOKEN },
    });
    await settled(serverId);
    const rows = await stack.platform.sql.db.execute(
      sql`select * from mcp_registry.servers where id = ${serverId}`,
    );
    const dump = JSON.stringify(rows);
    expect(dump).toContain(serverId);
    expect(dump).not.toContain(BEARER_TOKEN);
    expect(dump).not.toContain(HEADER_SECRET);
    const view = await http(`${stack.url}/mcp-registry/${serverId}`, { cookie: owner.cookie });
    expect(view.text).not.toContain(BEARER_TOKEN);
    expect(view.text).not.toContain(HEADER_SECRET);
  });

  test('access modes apply to every read, to refresh and to tool calls; outsiders see nothing', async () => {
    const listed = await addMember(workspaceId, 'listed');
    const unlisted = await addMember(workspaceId, 'unlisted');
    const outsider = await person('outsider');
    const outsiderWorkspace = await newWorkspace(outsider);
    const serverId = await registered({
      name: 'private',
      serverUrl: `${servers.origin}/open/mcp`,
      accessMode: 'specific_users',
      accessibleTo: [listed.userId],
    });
    await settled(serverId);

    for (const [who, visible] of [
      [owner, true],
      [listed, true],
      [unlisted, false],
      [outsider, false],
    ] as const) {
      const get = await http(`${stack.url}/mcp-registry/${serverId}`, { cookie: who.cookie });
      expect(get.status).toBe(visible ? 200 : 404);
      const refresh = await http(
        `${stack.url}/mcp-registry/${serverId}/refresh?workspace_id=${workspaceId}`,
        {
          method: 'POST',
          cookie: who.cookie,
        },
      );
      expect(refresh.status).toBe(visible ? 200 : 404);
      const tools = await toolsOf(who);
      if (who === outsider) {
        expect(tools.status).toBe(404);
      } else {
        const data = (tools.body as { data: McpToolRecord[] }).data;
        expect(data.some((tool) => tool.mcpServerId === serverId)).toBe(visible);
      }
      const list = await http(`${stack.url}/mcp-registry?workspaceId=${workspaceId}`, {
        cookie: who.cookie,
      });
      if (who === outsider) expect(list.status).toBe(404);
      else {
        const ids = (list.body as { servers: McpServerView[] }).servers.map((server) => server.id);
        expect(ids.includes(serverId)).toBe(visible);
      }
      const call = callApi(
        (await stack.as('chat')).bus,
        BUS_APIS.callTool,
        {
          workspaceId,
          userId: who.userId,
          serverId,
          toolName: 'echo',
          arguments: { message: 'x' },
        },
        { timeoutMs: 15_000 },
      );
      if (visible) await expect(call).resolves.toMatchObject({ isError: false });
      else await expect(call).rejects.toThrow(new AppError('NOT_FOUND', 'Tool not found'));
    }
    const outsiderTools = await toolsOf(outsider, `workspaceId=${outsiderWorkspace}`);
    expect((outsiderTools.body as { count: number }).count).toBe(0);

    // Only managers change it: the listed member may use but not edit or delete.
    const patch = await http(`${stack.url}/mcp-registry/${serverId}`, {
      method: 'PATCH',
      cookie: listed.cookie,
      body: { name: 'taken over' },
    });
    expect(patch.status).toBe(403);
    const remove = await http(`${stack.url}/mcp-registry/${serverId}`, {
      method: 'DELETE',
      cookie: listed.cookie,
    });
    expect(remove.status).toBe(403);
  });

  test('GET /mcp-registry/tools without a workspace id is a 400', async () => {
    const response = await toolsOf(owner, '');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: 'workspaceId is required',
      code: 'WORKSPACE_ID_REQUIRED',
    });
  });

  test('a disabled tool stays disabled across syncs and is not offered on the bus', async () => {
    const serverId = await registered({ name: 'toggles', serverUrl: `${servers.origin}/open/mcp` });
    await settled(serverId);
    const tools = (await toolsOf(owner)).body as { data: McpToolRecord[] };
    const echo = tools.data.find((tool) => tool.mcpServerId === serverId && tool.name === 'echo');
    expect(echo).toBeDefined();
    const patched = await http(`${stack.url}/mcp-registry/tools/${echo?.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { isEnabled: false },
    });
    expect(patched.status).toBe(200);
    expect((patched.body as { tool: McpToolRecord }).tool).toMatchObject({
      id: echo?.id,
      isEnabled: false,
    });

    const refresh = await http(`${stack.url}/mcp-registry/${serverId}/refresh`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(refresh.status).toBe(200);
    const after = (await toolsOf(owner)).body as { data: McpToolRecord[] };
    const again = after.data.find((tool) => tool.id === echo?.id);
    expect(again?.isEnabled).toBe(false);
    expect(Date.parse(again?.lastDiscoveredAt ?? '')).toBeGreaterThan(
      Date.parse(echo?.lastDiscoveredAt ?? ''),
    );

    const offered = await callApi(
      (await stack.as('chat')).bus,
      BUS_APIS.listTools,
      { workspaceId, userId: owner.userId },
      { timeoutMs: 5000 },
    );
    expect(offered.tools.some((tool) => tool.id === echo?.id)).toBe(false);
    expect(offered.tools.some((tool) => tool.serverId === serverId)).toBe(true);
  });

  test('PATCH changes a server and new credentials re-sync it', async () => {
    const serverId = await registered({
      name: 'before',
      serverUrl: `${servers.origin}/bearer/mcp`,
      authConfig: { value: 'wrong-token' },
    });
    expect((await settled(serverId)).sync_status).toBe('failed');
    const patched = await http(`${stack.url}/mcp-registry/${serverId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { name: 'after', authConfig: { value: BEARER_TOKEN }, accessMode: 'creator_only' },
    });
    expect(patched.status).toBe(200);
    expect((patched.body as { mcp: McpServerView }).mcp).toMatchObject({
      id: serverId,
      name: 'after',
      access_mode: 'creator_only',
    });
    expect(patched.text).not.toContain(BEARER_TOKEN);
    const deadline = Date.now() + 20_000;
    while ((await settled(serverId)).sync_status !== 'succeeded') {
      if (Date.now() > deadline) throw new Error('no re-sync after new credentials');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  test('a record that is not a custom HTTP server cannot be refreshed', async () => {
    const serverId = await registered({ name: 'odd', serverUrl: `${servers.origin}/open/mcp` });
    await settled(serverId);
    await stack.platform.sql.db.execute(
      sql`update mcp_registry.servers set server_type = 'stdio' where id = ${serverId}`,
    );
    const refresh = await http(`${stack.url}/mcp-registry/${serverId}/refresh`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body).toEqual({
      error: 'Only custom (HTTP) MCP servers can be refreshed',
      code: 'MCP_NOT_REFRESHABLE',
    });
  });

  test('delete removes the server and its tools', async () => {
    const serverId = await registered({
      name: 'to delete',
      serverUrl: `${servers.origin}/open/mcp`,
    });
    await settled(serverId);
    const removed = await http(`${stack.url}/mcp-registry/${serverId}`, {
      method: 'DELETE',
      cookie: owner.cookie,
    });
    expect(removed.status).toBe(204);
    const get = await http(`${stack.url}/mcp-registry/${serverId}`, { cookie: owner.cookie });
    expect(get.status).toBe(404);
    const tools = (await toolsOf(owner)).body as { data: McpToolRecord[] };
    expect(tools.data.some((tool) => tool.mcpServerId === serverId)).toBe(false);
  });
});
