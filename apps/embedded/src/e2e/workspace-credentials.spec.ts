import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Workflow } from '@wap/contracts';
import { eventually } from '@wap/testing';
import {
  addWorkspaceMember,
  fundedWorkspace,
  http,
  RUNTIMES,
  signedInPerson,
  startStack,
  type Person,
  type TestStack,
} from './stack';

interface RunView {
  status: string;
  steps: Array<{ status: string; error: string | null; input: unknown; output: unknown }>;
}

interface Received {
  url: string;
  headers: IncomingHttpHeaders;
}

const SECRET = 'sk_live_credential-of-the-e2e-0123456789';

/**
 * Workspace credentials (issue 41 item 5, decision 152), attacked as a member would: the value
 * reaches the server an http_request step calls, and nothing a member reads holds it (the API,
 * the run's input and output, the database in clear); a member's workflow cannot send the
 * owner's credential anywhere until its creator shares it with the workspace.
 */
describe.each(RUNTIMES)('workspace credentials on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let origin: string;
  const received: Received[] = [];
  let owner: Person;
  let member: Person;
  let workspaceId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push({ url: req.url ?? '', headers: req.headers });
      // Echoes what it was sent, as some APIs do in errors: the run must not keep the echo.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ youSent: req.headers['authorization'] ?? null, url: req.url }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'credentials-owner', 100));
    member = await addWorkspaceMember(
      stack,
      { cookie: owner.cookie, workspaceId },
      'credentials-member',
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => server?.close(resolve));
  });

  const credentialsPath = () => `${stack.url}/workspaces/${workspaceId}/credentials`;

  async function saveCredential(who: Person, name: string, value = SECRET) {
    return http(credentialsPath(), { method: 'POST', cookie: who.cookie, body: { name, value } });
  }

  /** A workflow of one http_request step to the test server, sending `name`'s value. */
  async function workflowSending(who: Person, name: string): Promise<Workflow> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: who.cookie,
      body: {
        workspaceId,
        name: `Sends ${name}`,
        trigger: { type: 'custom_webhook' },
        steps: [
          {
            type: 'http_request',
            name: 'call',
            settings: {
              method: 'POST',
              url: `${origin}/hook?key={{credentials.${name}}}`,
              headers: {
                authorization: 'Bearer {{ credentials.' + name + ' }}',
                'x-by': who.userId,
              },
              body: { note: 'token {{credentials.' + name + '}}' },
            },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    return (created.body as { workflow: Workflow }).workflow;
  }

  async function runToTheEnd(who: Person, workflowId: string): Promise<RunView> {
    const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: who.cookie,
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    return eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie: who.cookie });
      const { run } = response.body as { run: RunView };
      expect(['succeeded', 'failed']).toContain(run.status);
      return run;
    }, 30_000);
  }

  const sentBy = (who: Person) =>
    received.filter((request) => request.headers['x-by'] === who.userId);

  test('a saved value reaches the called server and nothing a member reads: the API, the run, the database', async () => {
    const saved = await saveCredential(owner, 'API_TOKEN');
    expect(saved.status).toBe(201);
    expect(saved.body).toEqual({
      credential: expect.objectContaining({ name: 'API_TOKEN', access: 'creator_only' }),
    });
    expect(JSON.stringify(saved.body)).not.toContain(SECRET);
    expect((await saveCredential(member, 'API_TOKEN', 'another')).status).toBe(409);
    const listed = await http(credentialsPath(), { cookie: member.cookie });
    expect(listed.status).toBe(200);
    expect((listed.body as { credentials: { name: string }[] }).credentials).toEqual([
      expect.objectContaining({ name: 'API_TOKEN' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(SECRET);
    const stored = await stack.platform.sql.db.execute(
      sql`select sealed_value from workflow_runner.workspace_credentials where name = 'API_TOKEN'`,
    );
    expect(JSON.stringify(stored)).not.toContain(SECRET);

    const workflow = await workflowSending(owner, 'API_TOKEN');
    expect(JSON.stringify(workflow)).not.toContain(SECRET);
    const run = await runToTheEnd(owner, workflow.id);
    expect(run.status).toBe('succeeded');
    const [request] = sentBy(owner);
    expect(request?.headers['authorization']).toBe(`Bearer ${SECRET}`);
    expect(request?.url).toBe(`/hook?key=${SECRET}`);
    expect(run.steps[0]?.input).toEqual({
      method: 'POST',
      url: `${origin}/hook?key=[credential API_TOKEN]`,
      headers: { authorization: '[redacted]', 'x-by': owner.userId },
      body: { note: 'token [credential API_TOKEN]' },
    });
    expect(run.steps[0]?.output).toMatchObject({
      body: { youSent: 'Bearer [redacted]', url: '/hook?key=[redacted]' },
    });
    const detail = await http(`${stack.url}/runs/${(await lastRunId(workflow.id)) ?? ''}`, {
      cookie: member.cookie,
    });
    expect(JSON.stringify(detail.body)).not.toContain(SECRET);
  });

  async function lastRunId(workflowId: string): Promise<string | undefined> {
    const runs = await http(`${stack.url}/workflows/${workflowId}/runs`, { cookie: owner.cookie });
    return (runs.body as { runs: { id: string }[] }).runs[0]?.id;
  }

  test("a member's workflow cannot send the owner's credential, nor can the member's change to the owner's, until its creator shares it", async () => {
    const name = 'OWNER_ONLY';
    const saved = await saveCredential(owner, name);
    const credentialId = (saved.body as { credential: { id: string } }).credential.id;
    const own = await workflowSending(member, name);
    const before = received.length;
    const refused = await runToTheEnd(member, own.id);
    expect(refused.status).toBe('failed');
    expect(refused.steps[0]?.error).toBe(`Credential "${name}" not found`);
    // A credential that does not exist reads the same.
    const missing = await runToTheEnd(member, (await workflowSending(member, 'NO_SUCH')).id);
    expect(missing.steps[0]?.error).toBe('Credential "NO_SUCH" not found');

    // The member edits the owner's workflow: it runs as the member now (decision 147).
    const owners = await workflowSending(owner, name);
    const changed = await http(`${stack.url}/workflows/${owners.id}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: {
        steps: [
          {
            type: 'http_request',
            name: 'call',
            settings: {
              method: 'POST',
              url: `${origin}/stolen?key={{credentials.${name}}}`,
              headers: { 'x-by': member.userId },
            },
          },
        ],
      },
    });
    expect(changed.status).toBe(200);
    const stolen = await runToTheEnd(member, owners.id);
    expect(stolen.steps[0]?.error).toBe(`Credential "${name}" not found`);
    expect(received.length).toBe(before);

    // Only its creator shares it; once shared, any member's workflow may send it.
    for (const body of [{ access: 'workspace' }, { value: 'replaced' }]) {
      const byMember = await http(`${credentialsPath()}/${credentialId}`, {
        method: 'PATCH',
        cookie: member.cookie,
        body,
      });
      expect(byMember.status).toBe(403);
    }
    const byMemberDelete = await http(`${credentialsPath()}/${credentialId}`, {
      method: 'DELETE',
      cookie: member.cookie,
    });
    expect(byMemberDelete.status).toBe(403);
    const shared = await http(`${credentialsPath()}/${credentialId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { access: 'workspace' },
    });
    expect(shared.status).toBe(200);
    expect((await runToTheEnd(member, own.id)).status).toBe('succeeded');
    expect(sentBy(member).at(-1)?.headers['authorization']).toBe(`Bearer ${SECRET}`);

    // Deleted, it is gone for every run.
    const deleted = await http(`${credentialsPath()}/${credentialId}`, {
      method: 'DELETE',
      cookie: owner.cookie,
    });
    expect(deleted.status).toBe(204);
    expect((await runToTheEnd(member, own.id)).steps[0]?.error).toBe(
      `Credential "${name}" not found`,
    );
  });

  test('credentials go into http_request steps only; outsiders find none of them', async () => {
    const approval = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'Mails a secret',
        trigger: { type: 'custom_webhook' },
        steps: [
          {
            type: 'approval',
            settings: { reviewerIds: [owner.userId], message: 'key {{credentials.API_TOKEN}}' },
          },
        ],
      },
    });
    expect(approval.status).toBe(400);
    expect(JSON.stringify(approval.body)).toContain('http_request steps only');

    const outsider = await signedInPerson(stack, 'credentials-outsider');
    const listed = await http(credentialsPath(), { cookie: outsider.cookie });
    expect(listed.status).toBe(404);
    const created = await saveCredential(outsider, 'PLANTED');
    expect(created.status).toBe(404);
    const mine = await http(credentialsPath(), { cookie: owner.cookie });
    const [first] = (mine.body as { credentials: { id: string }[] }).credentials;
    for (const method of ['PATCH', 'DELETE'] as const) {
      const response = await http(`${credentialsPath()}/${first?.id ?? ''}`, {
        method,
        cookie: outsider.cookie,
        body: method === 'PATCH' ? { value: 'x' } : undefined,
      });
      expect(response.status).toBe(404);
    }
  });
});
