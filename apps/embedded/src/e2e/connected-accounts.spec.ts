import { sql } from 'drizzle-orm';
import { AppError, type McpAccountConnection, type McpServerView, BUS_APIS } from '@wap/contracts';
import { oauthRedirectUriFor } from '@wap/mcp-registry-service';
import { callApi } from '@wap/bus-protocol';
import {
  eventually,
  startConnectedAccountServers,
  type ConnectedAccountServers,
} from '@wap/testing';
import { registrySettingsFor } from './mcp-test-servers';
import {
  addWorkspaceMember,
  http,
  newWorkspaceOwner,
  RUNTIMES,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
  type WorkspaceOwner,
} from './stack';

/** Short, so that the tests see tokens expire and be refreshed. */
const ACCESS_TOKEN_TTL_SECONDS = 4;
const REDIRECT_URI = oauthRedirectUriFor('http://localhost:3000');

/**
 * Connected accounts (issue 30 item 7, decision 138): an MCP server that takes each person's own
 * account, in front of a real OAuth 2.1 authorization server (oidc-provider). A person connects
 * from the API the web app uses; syncs and tool calls then carry that person's token.
 */
describe.each(RUNTIMES)('connected accounts on the %s runtime', (runtime) => {
  let servers: ConnectedAccountServers;
  let stack: TestStack;
  let owner: WorkspaceOwner & Person;
  let serverId: string;

  beforeAll(async () => {
    servers = await startConnectedAccountServers({
      accessTokenTtlSeconds: ACCESS_TOKEN_TTL_SECONDS,
    });
    stack = await startStack(runtime, {
      services: { mcpRegistry: registrySettingsFor(servers, { callTimeoutMs: 10_000 }) },
    });
    const created = await newWorkspaceOwner(stack, 'accounts-owner');
    const me = await http(`${stack.url}/me`, { cookie: created.cookie });
    owner = { ...created, userId: (me.body as { user: { id: string } }).user.id };
    serverId = await register('Issue tracker', servers.mcpUrl);
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
    await servers?.stop();
  });

  async function register(name: string, serverUrl: string, authConfig = { type: 'account' }) {
    const response = await http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId: owner.workspaceId, name, serverUrl, authConfig },
    });
    expect(response.status).toBe(201);
    return (response.body as { mcp: { id: string } }).mcp.id;
  }

  async function serverView(id: string): Promise<McpServerView> {
    const response = await http(`${stack.url}/mcp-registry/${id}`, { cookie: owner.cookie });
    return (response.body as { mcp: McpServerView }).mcp;
  }

  async function accountOf(who: Person, id = serverId): Promise<McpAccountConnection> {
    const response = await http(`${stack.url}/mcp-registry/${id}/account`, { cookie: who.cookie });
    expect(response.status).toBe(200);
    return (response.body as { account: McpAccountConnection }).account;
  }

  async function startConnecting(who: Person, id = serverId) {
    return http(`${stack.url}/mcp-registry/${id}/account/authorizations`, {
      method: 'POST',
      cookie: who.cookie,
    });
  }

  async function complete(who: Person, answer: URLSearchParams) {
    return http(`${stack.url}/mcp-registry/oauth/callback`, {
      method: 'POST',
      cookie: who.cookie,
      body: Object.fromEntries(answer),
    });
  }

  /** The whole connection as a person goes through it: start, sign in there, come back. */
  async function connect(who: Person, login: string, id = serverId): Promise<McpAccountConnection> {
    const started = await startConnecting(who, id);
    expect(started.status).toBe(201);
    const { authorization_url: url } = started.body as { authorization_url: string };
    const completed = await complete(who, await servers.authorize(url, login, REDIRECT_URI));
    expect(completed.status).toBe(200);
    return (completed.body as { account: McpAccountConnection }).account;
  }

  async function whoami(who: Person): Promise<string> {
    const reply = await callApi(
      (await stack.as('chat')).bus,
      BUS_APIS.callTool,
      { workspaceId: owner.workspaceId, userId: who.userId, serverId, toolName: 'whoami' },
      { timeoutMs: 15_000 },
    );
    return (reply.content[0] as { text: string }).text;
  }

  test('before anyone connects, the sync says whose account it needs', async () => {
    const view = await eventually(async () => {
      const current = await serverView(serverId);
      expect(current.sync_status).toBe('failed');
      return current;
    });
    expect(view.auth_type).toBe('account');
    expect(view.sync_errors).toEqual([
      "Connect your account to Issue tracker first: it uses each person's own account",
    ]);
    expect(await accountOf(owner)).toEqual({
      server_id: serverId,
      connected: false,
      connected_at: null,
      expires_at: null,
      scope: null,
    });
  });

  test('a person connects by OAuth 2.1 with PKCE: the platform registers itself, and the tools sync with their token', async () => {
    const started = await startConnecting(owner);
    expect(started.status).toBe(201);
    const url = new URL((started.body as { authorization_url: string }).authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${servers.issuer}/auth`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('resource')).toBe(servers.mcpUrl);
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(url.searchParams.get('scope')?.split(' ')).toContain('mcp:tools');
    expect((await servers.events()).filter((event) => event.name === 'registered')).toHaveLength(1);

    const answer = await servers.authorize(url.href, 'owner-at-tracker', REDIRECT_URI);
    expect(answer.get('iss')).toBe(servers.issuer);
    const completed = await complete(owner, answer);
    expect(completed.status).toBe(200);
    expect(completed.body).toMatchObject({
      workspace_id: owner.workspaceId,
      account: { server_id: serverId, connected: true },
    });
    const account = (completed.body as { account: McpAccountConnection }).account;
    const lifetime = Date.parse(account.expires_at ?? '') - Date.parse(account.connected_at ?? '');
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(ACCESS_TOKEN_TTL_SECONDS * 1000 + 1000);

    const view = await eventually(async () => {
      const current = await serverView(serverId);
      expect(current.sync_status).toBe('succeeded');
      return current;
    });
    expect(view.sync_errors).toEqual([]);
    const tools = await http(`${stack.url}/mcp-registry/tools?workspaceId=${owner.workspaceId}`, {
      cookie: owner.cookie,
    });
    expect((tools.body as { data: Array<{ name: string }> }).data.map((tool) => tool.name)).toEqual(
      ['whoami'],
    );
    expect(await whoami(owner)).toBe('owner-at-tracker');
    // The platform came as the client it registered, not as anyone else.
    expect((await servers.events()).filter((event) => event.name === 'registered')).toHaveLength(1);
  });

  test('each person calls with their own account; one with none is told to connect to that server', async () => {
    const member = await addWorkspaceMember(stack, owner, 'accounts-member');
    const unconnected = await addWorkspaceMember(stack, owner, 'accounts-unconnected');
    await connect(member, 'member-at-tracker');
    expect(await whoami(member)).toBe('member-at-tracker');
    expect(await whoami(owner)).toBe('owner-at-tracker');
    await expect(whoami(unconnected)).rejects.toThrow(
      new AppError(
        'MCP_CALL_FAILED',
        "Connect your account to Issue tracker first: it uses each person's own account",
      ),
    );
    // Nobody sees another person's connection: each reads only their own.
    expect((await accountOf(unconnected)).connected).toBe(false);
  });

  test('a refresh by a person who has not connected their account answers 409 with the connect message, not a 5xx', async () => {
    const unconnected = await addWorkspaceMember(stack, owner, 'accounts-refresher');
    const refreshed = await http(
      `${stack.url}/mcp-registry/${serverId}/refresh?workspace_id=${owner.workspaceId}`,
      { method: 'POST', cookie: unconnected.cookie },
    );
    expect(refreshed.status).toBe(409);
    expect(refreshed.body).toEqual({
      error: "Connect your account to Issue tracker first: it uses each person's own account",
      code: 'MCP_ACCOUNT_NOT_CONNECTED',
    });
    // The owner, connected, still refreshes it.
    const byOwner = await http(
      `${stack.url}/mcp-registry/${serverId}/refresh?workspace_id=${owner.workspaceId}`,
      { method: 'POST', cookie: owner.cookie },
    );
    expect(byOwner.status).toBe(200);
  });

  test("a workflow's MCP-tool step calls with its creator's account", async () => {
    const admin = await stack.cookieFor(uniqueEmail('accounts-admin'), { platformAdmin: true });
    const granted = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: 10, reason: 'e2e' },
    });
    expect(granted.status).toBe(201);
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Who am I',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'mcp_tool', name: 'ask', settings: { serverId, toolName: 'whoami' } }],
      },
    });
    expect(created.status).toBe(201);
    const workflowId = (created.body as { workflow: { id: string } }).workflow.id;
    const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(started.status).toBe(202);
    const runId = (started.body as { runId: string }).runId;
    const run = await eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie });
      const body = response.body as {
        run: { status: string; steps: Array<{ status: string; output: unknown }> };
      };
      expect(body.run.status).toBe('succeeded');
      return body.run;
    });
    expect(run.steps[0]?.output).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'owner-at-tracker' }],
    });
  });

  test("a member's change to the owner's workflow calls with the member's account, not the owner's (decision 147)", async () => {
    const member = await addWorkspaceMember(stack, owner, 'accounts-editor');
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Who am I, edited',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'mcp_tool', name: 'ask', settings: { serverId, toolName: 'whoami' } }],
      },
    });
    const workflowId = (created.body as { workflow: { id: string } }).workflow.id;
    const patched = await http(`${stack.url}/workflows/${workflowId}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: {
        steps: [{ type: 'mcp_tool', name: 'asked', settings: { serverId, toolName: 'whoami' } }],
      },
    });
    expect(patched.status).toBe(200);
    const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: member.cookie,
    });
    const runId = (started.body as { runId: string }).runId;
    const run = await eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie: member.cookie });
      const body = response.body as {
        run: { status: string; steps: Array<{ error: string | null; output: unknown }> };
      };
      expect(body.run.status).toBe('failed');
      return body.run;
    });
    expect(run.steps[0]?.error).toContain(
      "Connect your account to Issue tracker first: it uses each person's own account",
    );
    expect(JSON.stringify(run.steps[0]?.output ?? null)).not.toContain('owner-at-tracker');
  });

  test('the tokens are sealed at rest: no token the server accepted is in the database', async () => {
    expect(servers.acceptedTokens.length).toBeGreaterThan(0);
    const rows = await stack.platform.sql.db.execute(
      sql`select * from mcp_registry.account_connections`,
    );
    const dump = JSON.stringify(rows);
    expect(dump).toContain(serverId);
    for (const token of new Set(servers.acceptedTokens)) expect(dump).not.toContain(token);
  });

  test('an access token about to expire is refreshed before the call, and the call goes through', async () => {
    const before = await accountOf(owner);
    const refreshesBefore = (await servers.events()).filter(
      (event) => event.name === 'token' && event.grantType === 'refresh_token',
    ).length;
    // Past three quarters of the token's life: the next use refreshes it first.
    await new Promise((resolve) => setTimeout(resolve, ACCESS_TOKEN_TTL_SECONDS * 1000));
    expect(await whoami(owner)).toBe('owner-at-tracker');
    const refreshes = (await servers.events()).filter(
      (event) => event.name === 'token' && event.grantType === 'refresh_token',
    ).length;
    expect(refreshes).toBeGreaterThan(refreshesBefore);
    const after = await accountOf(owner);
    expect(Date.parse(after.expires_at ?? '')).toBeGreaterThan(Date.parse(before.expires_at ?? ''));
    expect(after.connected_at).toBe(before.connected_at);
  });

  test('an answer is good once, and only for the person who started it', async () => {
    const other = await addWorkspaceMember(stack, owner, 'accounts-other');
    const started = await startConnecting(other);
    const { authorization_url: url } = started.body as { authorization_url: string };
    const answer = await servers.authorize(url, 'other-at-tracker', REDIRECT_URI);

    const stolen = await complete(owner, answer);
    expect(stolen.status).toBe(404);
    expect(stolen.body).toEqual({
      error:
        'No connection of yours is waiting for this answer: it expired or was used; connect again',
      code: 'NOT_FOUND',
    });
    expect(await whoami(owner)).toBe('owner-at-tracker');

    expect((await complete(other, answer)).status).toBe(200);
    expect((await complete(other, answer)).status).toBe(404);
  });

  test("starting again replaces a person's earlier attempt at the same server", async () => {
    const other = await addWorkspaceMember(stack, owner, 'accounts-twice');
    const stateOf = async () => {
      const started = await startConnecting(other);
      expect(started.status).toBe(201);
      return new URL(
        (started.body as { authorization_url: string }).authorization_url,
      ).searchParams.get('state');
    };
    const first = await stateOf();
    const second = await stateOf();
    expect(second).not.toBe(first);
    const answer = (state: string | null) =>
      new URLSearchParams({ state: state ?? '', error: 'access_denied' });
    expect((await complete(other, answer(first))).status).toBe(404);
    expect((await complete(other, answer(second))).status).toBe(400);
  });

  test('a refusal at the authorization server is reported, and the attempt is used up', async () => {
    const other = await addWorkspaceMember(stack, owner, 'accounts-refuser');
    const started = await startConnecting(other);
    const state = new URL(
      (started.body as { authorization_url: string }).authorization_url,
    ).searchParams.get('state');
    const refusal = new URLSearchParams({ state: state ?? '', error: 'access_denied' });
    const refused = await complete(other, refusal);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error:
        'The authorization server of Issue tracker did not authorize the connection (access_denied)',
      code: 'MCP_AUTHORIZATION_DENIED',
    });
    expect((await complete(other, refusal)).status).toBe(404);
  });

  test('disconnecting revokes the tokens at the authorization server and ends the calls', async () => {
    const leaving = await addWorkspaceMember(stack, owner, 'accounts-leaving');
    await connect(leaving, 'leaving-at-tracker');
    expect(await whoami(leaving)).toBe('leaving-at-tracker');
    const countOf = async (name: string) =>
      (await servers.events()).filter((event) => event.name === name).length;
    const revocationsBefore = await countOf('revocation');
    const grantsRevokedBefore = await countOf('grant_revoked');

    const disconnected = await http(`${stack.url}/mcp-registry/${serverId}/account`, {
      method: 'DELETE',
      cookie: leaving.cookie,
    });
    expect(disconnected.status).toBe(204);
    // Forgotten at once; revoked right after, in the background: the refresh token, sent with
    // the client's credentials (a request without them is refused 401), which ends the grant
    // and its access tokens.
    expect((await accountOf(leaving)).connected).toBe(false);
    await eventually(async () => {
      const revocations = (await servers.events())
        .filter((event) => event.name === 'revocation')
        .slice(revocationsBefore);
      expect(revocations.map((event) => event.status)).toEqual([200]);
      expect((await countOf('grant_revoked')) - grantsRevokedBefore).toBe(1);
    });
    await expect(whoami(leaving)).rejects.toThrow(
      "Connect your account to Issue tracker first: it uses each person's own account",
    );
    expect(await whoami(owner)).toBe('owner-at-tracker');
  });

  test("deleting the server revokes every person's connection to it", async () => {
    const doomedId = await register('Doomed tracker', servers.mcpUrl);
    const member = await addWorkspaceMember(stack, owner, 'accounts-doomed');
    await connect(owner, 'owner-at-doomed', doomedId);
    await connect(member, 'member-at-doomed', doomedId);
    const countOf = async (name: string) =>
      (await servers.events()).filter((event) => event.name === name).length;
    const grantsRevokedBefore = await countOf('grant_revoked');

    const deleted = await http(`${stack.url}/mcp-registry/${doomedId}`, {
      method: 'DELETE',
      cookie: owner.cookie,
    });
    expect(deleted.status).toBe(204);
    await eventually(async () => {
      expect((await countOf('grant_revoked')) - grantsRevokedBefore).toBe(2);
    });
    const rows = await stack.platform.sql.db.execute(
      sql`select count(*)::int as left from mcp_registry.account_connections where server_id = ${doomedId}`,
    );
    expect(JSON.stringify(rows)).toContain('"left":0');
  });

  test('an authorization server at a private address is never contacted (SSRF)', async () => {
    const internalId = await register('Internal', servers.internalMcpUrl);
    const started = await startConnecting(owner, internalId);
    expect(started.status).toBe(502);
    expect(started.body).toEqual({
      error: expect.stringMatching(/^The authorization server of Internal /) as unknown,
      code: 'MCP_AUTHORIZATION_FAILED',
    });
    expect(servers.internalConnections()).toBe(0);
  });

  test('a server of another auth type has no account to connect; a stranger sees no server', async () => {
    const directId = await register('Direct', servers.mcpUrl, {
      type: 'direct',
      value: 'a-static-token',
    } as { type: string });
    const refused = await startConnecting(owner, directId);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'Direct does not use connected accounts (its auth type is direct)',
      code: 'MCP_ACCOUNT_NOT_USED',
    });
    const stranger = await signedInPerson(stack, 'accounts-stranger');
    expect((await startConnecting(stranger)).status).toBe(404);
    expect(
      (await http(`${stack.url}/mcp-registry/${serverId}/account`, { cookie: stranger.cookie }))
        .status,
    ).toBe(404);
  });
});
