import { request } from 'node:http';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, uniqueEmail, type TestStack } from './stack';

/**
 * The platform's own MCP server at POST /mcp, exercised by an independent client: the official
 * SDK's Client over Streamable HTTP, authenticated with a workspace API key.
 */
describe.each(RUNTIMES)("the platform's MCP server on the %s runtime", (runtime) => {
  let stack: TestStack;
  let cookie: string;
  let workspaceId: string;
  let apiKey: string;

  beforeAll(async () => {
    stack = await startStack(runtime, { config: { requestTimeoutMs: 10_000 } });
    cookie = await stack.cookieFor(uniqueEmail('mcp-owner'));
    const workspace = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'mcp endpoint' },
    });
    workspaceId = (workspace.body as { workspace: { id: string } }).workspace.id;
    const key = await http(`${stack.url}/workspaces/${workspaceId}/api-keys`, {
      method: 'POST',
      cookie,
      body: { name: 'mcp client' },
    });
    expect(key.status).toBe(201);
    apiKey = (key.body as { key: string }).key;
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function connect(mode: 'auto' | 'legacy', key = apiKey): Promise<Client> {
    const client = new Client(
      { name: 'e2e-client', version: '1.0.0' },
      { versionNegotiation: { mode } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
      { timeout: 10_000 },
    );
    return client;
  }

  /** Empties (or fills) the workspace's credits through the administrators' route. */
  async function setCredits(balance: number): Promise<void> {
    const current = await http(`${stack.url}/workspaces/${workspaceId}/credits`, { cookie });
    const delta = balance - (current.body as { balance: number }).balance;
    if (delta === 0) return;
    const admin = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
    const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: delta, reason: 'mcp endpoint test' },
    });
    expect(granted.status).toBe(201);
  }

  function structured<T>(result: { structuredContent?: unknown; isError?: unknown }): T {
    expect(result).not.toMatchObject({ isError: true });
    return result.structuredContent as T;
  }

  test.each(['auto', 'legacy'] as const)(
    "the SDK client (%s negotiation) lists the tools and runs a workflow of the key's workspace",
    async (mode) => {
      const created = await http(`${stack.url}/workflows`, {
        method: 'POST',
        cookie,
        body: {
          workspaceId,
          name: `mcp ${mode}`,
          trigger: { type: 'custom_webhook' },
          steps: [],
        },
      });
      expect(created.status).toBe(201);
      const workflowId = (created.body as { workflow: { id: string } }).workflow.id;

      await setCredits(0);
      const client = await connect(mode);
      try {
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name).sort()).toEqual(
          ['get_run', 'list_workflows', 'retry_run', 'run_workflow'].sort(),
        );

        const listed = structured<{ workflows: Array<{ id: string; name: string }> }>(
          await client.callTool({ name: 'list_workflows', arguments: {} }),
        );
        expect(listed.workflows).toContainEqual(
          expect.objectContaining({ id: workflowId, name: `mcp ${mode}` }),
        );

        const broke = await client.callTool({ name: 'run_workflow', arguments: { workflowId } });
        expect(broke).toMatchObject({
          isError: true,
          content: [
            {
              type: 'text',
              text: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
            },
          ],
        });
        await setCredits(10);

        const started = structured<{ runId: string }>(
          await client.callTool({
            name: 'run_workflow',
            arguments: { workflowId, input: { a: 1 } },
          }),
        );
        expect(started.runId).toEqual(expect.any(String));

        const run = structured<{ run: { id: string; workflow_id: string } }>(
          await client.callTool({ name: 'get_run', arguments: { runId: started.runId } }),
        );
        expect(run.run).toMatchObject({ id: started.runId, workflow_id: workflowId });

        // An ended run is retried by the key as the route retries it: nothing failed, so only
        // from the start.
        await eventually(async () => {
          const read = structured<{ run: { status: string } }>(
            await client.callTool({ name: 'get_run', arguments: { runId: started.runId } }),
          );
          expect(read.run.status).toBe('succeeded');
        });
        expect(
          await client.callTool({ name: 'retry_run', arguments: { runId: started.runId } }),
        ).toMatchObject({
          isError: true,
          content: [
            { type: 'text', text: 'Every step of this run succeeded: retry it from the start' },
          ],
        });
        const retried = structured<{ runId: string }>(
          await client.callTool({
            name: 'retry_run',
            arguments: { runId: started.runId, from: 'start' },
          }),
        );
        const retry = await http(`${stack.url}/runs/${retried.runId}`, { cookie });
        expect((retry.body as { run: unknown }).run).toMatchObject({
          retry_of: started.runId,
          attempt: 2,
        });
        // Another workspace's ended run is not this key's to retry.
        const other = await fundedWorkspace(stack, `mcp-other-${mode}`, 5);
        const foreignWorkflow = await http(`${stack.url}/workflows`, {
          method: 'POST',
          cookie: other.owner.cookie,
          body: {
            workspaceId: other.workspaceId,
            name: 'not yours',
            trigger: { type: 'custom_webhook' },
            steps: [],
          },
        });
        const foreignStart = await http(
          `${stack.url}/workflows/${(foreignWorkflow.body as { workflow: { id: string } }).workflow.id}/run`,
          { method: 'POST', cookie: other.owner.cookie },
        );
        const foreignRun = (foreignStart.body as { runId: string }).runId;
        await eventually(async () => {
          const read = await http(`${stack.url}/runs/${foreignRun}`, {
            cookie: other.owner.cookie,
          });
          expect((read.body as { run: { status: string } }).run.status).toBe('succeeded');
        });
        expect(
          await client.callTool({
            name: 'retry_run',
            arguments: { runId: foreignRun, from: 'start' },
          }),
        ).toMatchObject({ isError: true, content: [{ type: 'text', text: 'Run not found' }] });
        const foreignRead = await http(`${stack.url}/runs/${foreignRun}`, {
          cookie: other.owner.cookie,
        });
        expect((foreignRead.body as { retries: unknown[] }).retries).toEqual([]);

        const foreign = await client.callTool({
          name: 'run_workflow',
          arguments: { workflowId: '00000000-0000-4000-8000-000000000000' },
        });
        expect(foreign).toMatchObject({
          isError: true,
          content: [{ type: 'text', text: 'Workflow not found' }],
        });
      } finally {
        await client.close();
      }
    },
  );

  test('a wrong key gets 401, and the SDK client cannot connect with it', async () => {
    const wrong = await http(`${stack.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk_wrongwrongwrongwrong',
        accept: 'application/json, text/event-stream',
      },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Invalid API key', code: 'UNAUTHORIZED' });
    const failure = await connect('legacy', 'sk_wrongwrongwrongwrong').catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SdkHttpError);
    expect((failure as SdkHttpError).status).toBe(401);
  });

  test('GET and DELETE /mcp answer 405 in stateless mode; the key is refused on REST routes', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await http(`${stack.url}/mcp`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
      });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
    const rest = await http(`${stack.url}/mcp-registry/tools?workspaceId=${workspaceId}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(rest.status).toBe(401);
    expect(rest.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  test('a Host header that makes no URL is a 400 Error body, not a 500', async () => {
    const url = new URL(stack.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const outgoing = request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/mcp',
          headers: {
            host: 'x:99999',
            authorization: `Bearer ${apiKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (incoming) => {
          let body = '';
          incoming.on('data', (chunk: Buffer) => (body += String(chunk)));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({
      error: 'The Host header is not valid',
      code: 'BAD_REQUEST',
    });
  });
});
