import { AppError, BUS_APIS, DEFAULT_WORKFLOW_PERMISSIONS, type Workflow } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import { eventually } from '@wap/testing';
import {
  HEADER_SECRET,
  registrySettingsFor,
  startMcpTestServers,
  type McpTestServers,
} from './mcp-test-servers';
import {
  addWorkspaceMember,
  http,
  RUNTIMES,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

interface RunView {
  id: string;
  status: string;
  steps: Array<{ status: string; error: string | null; output: unknown }>;
}

/**
 * Who a run acts as (issue 41 item 1, decision 147), attacked as a member of the workspace
 * would: a member who changes the owner's workflow makes it run as the member, so the owner's
 * private MCP server and its secret header stay out of reach until the owner adopts the change.
 * Who may edit, run, publish, schedule and delete follows the workspace's permissions.
 */
describe.each(RUNTIMES)('who a run acts as on the %s runtime', (runtime) => {
  let servers: McpTestServers;
  let stack: TestStack;
  let owner: Person;
  let member: Person;
  let workspaceId: string;
  let privateServerId: string;

  beforeAll(async () => {
    servers = await startMcpTestServers();
    stack = await startStack(runtime, {
      services: { mcpRegistry: registrySettingsFor(servers, { callTimeoutMs: 15_000 }) },
    });
    owner = await signedInPerson(stack, 'owners-owner');
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { name: 'Owners' },
    });
    workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    member = await addWorkspaceMember(
      stack,
      { cookie: owner.cookie, workspaceId },
      'owners-member',
    );
    const admin = await stack.cookieFor(uniqueEmail('owners-admin'), { platformAdmin: true });
    const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: admin,
      body: { amount: 100, reason: 'e2e' },
    });
    expect(granted.status).toBe(201);
    // The owner's own server: only they may use it, and it takes a secret header.
    const registered = await http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'Owner only',
        serverUrl: `${servers.origin}/header/mcp`,
        authConfig: { headerName: 'X-Api-Key', value: HEADER_SECRET, prefix: '' },
        accessMode: 'creator_only',
      },
    });
    expect(registered.status).toBe(201);
    privateServerId = (registered.body as { mcp: { id: string } }).mcp.id;
    await eventually(async () => {
      const view = await http(`${stack.url}/mcp-registry/${privateServerId}`, {
        cookie: owner.cookie,
      });
      expect((view.body as { mcp: { sync_status: string } }).mcp.sync_status).toBe('succeeded');
    }, 30_000);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await servers?.stop();
  });

  async function createWorkflow(who: Person, steps: unknown[] = []): Promise<Workflow> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: who.cookie,
      body: {
        workspaceId,
        name: 'Owned',
        trigger: { type: 'custom_webhook' },
        steps: steps.length > 0 ? steps : [{ type: 'delay', settings: { seconds: 0 } }],
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

  const echoStep = (message: string) => ({
    type: 'mcp_tool',
    name: 'echo',
    settings: { serverId: privateServerId, toolName: 'echo', arguments: { message } },
  });
  const echoCallsOf = (message: string) =>
    servers.rpcMessages.filter(
      (rpc) => rpc.method === 'tools/call' && JSON.stringify(rpc.params).includes(message),
    );

  test("a member's change to the owner's workflow runs as the member: the owner's private server is out of reach", async () => {
    const workflow = await createWorkflow(owner);
    expect(workflow).toMatchObject({ owner_id: owner.userId, runs_as: owner.userId });
    const message = `member-${Date.now()}`;
    const patched = await http(`${stack.url}/workflows/${workflow.id}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: { steps: [echoStep(message)] },
    });
    expect(patched.status).toBe(200);
    expect((patched.body as { workflow: Workflow }).workflow).toMatchObject({
      owner_id: owner.userId,
      runs_as: member.userId,
    });
    const run = await runToTheEnd(member, workflow.id);
    expect(run.status).toBe('failed');
    expect(run.steps[0]?.error).toContain('Tool not found');
    // The server never heard of the call, so its secret header was never sent for it.
    expect(echoCallsOf(message)).toEqual([]);

    // The owner reads the change and adopts it: runs act as the owner again.
    const adopted = await http(`${stack.url}/workflows/${workflow.id}/adopt`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(adopted.status).toBe(200);
    expect((adopted.body as { workflow: Workflow }).workflow.runs_as).toBe(owner.userId);
    const accepted = await runToTheEnd(owner, workflow.id);
    expect(accepted.status).toBe('succeeded');
    expect(JSON.stringify(accepted.steps[0]?.output)).toContain(message);
    // The tool is told the step's idempotency key, as an http_request's receiver is (decision 155).
    expect(echoCallsOf(message)).toEqual([
      {
        method: 'tools/call',
        params: expect.objectContaining({ _meta: { idempotencyKey: `${accepted.id}:0:0` } }),
      },
    ]);
  });

  test('a save that leaves trigger and steps as they are (a rename, a setting) keeps whom it runs as', async () => {
    const workflow = await createWorkflow(owner);
    const renamed = await http(`${stack.url}/workflows/${workflow.id}`, {
      method: 'PATCH',
      cookie: member.cookie,
      body: {
        name: 'Renamed by a member',
        trigger: { type: 'custom_webhook' },
        steps: workflow.steps,
        settings: { stopOnNodeFailure: false },
      },
    });
    expect(renamed.status).toBe(200);
    expect((renamed.body as { workflow: Workflow }).workflow).toMatchObject({
      name: 'Renamed by a member',
      runs_as: owner.userId,
    });
  });

  test('the workspace decides who may edit, run, publish, schedule, delete and change approvals; members read it, owners change it', async () => {
    const defaults = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      cookie: member.cookie,
    });
    expect(defaults.status).toBe(200);
    expect(defaults.body).toEqual({
      workspace_id: workspaceId,
      permissions: {
        edit: 'member',
        run: 'member',
        publish: 'member',
        schedule: 'member',
        delete: 'member',
        change_approvals: 'member',
      },
      updated_at: null,
    });
    const byMember = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      method: 'PUT',
      cookie: member.cookie,
      body: { permissions: { edit: 'member' } },
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: "Only the workspace's owners may change who may do what with its workflows",
      code: 'FORBIDDEN',
    });
    const invalid = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { permissions: { edit: 'anyone' } },
    });
    expect(invalid.status).toBe(400);

    const ownersWorkflow = await createWorkflow(owner);
    const membersWorkflow = await createWorkflow(member, [
      { type: 'approval', settings: { reviewerIds: [owner.userId] } },
    ]);
    const restricted = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: {
        permissions: {
          edit: 'workflow_owner',
          run: 'workflow_owner',
          publish: 'workspace_owner',
          schedule: 'workspace_owner',
          delete: 'workflow_owner',
          change_approvals: 'workspace_owner',
        },
      },
    });
    expect(restricted.status).toBe(200);
    try {
      const refusals: Array<[string, string, unknown, string]> = [
        ['PATCH', `/workflows/${ownersWorkflow.id}`, { name: 'x' }, 'edit workflows'],
        ['POST', `/workflows/${ownersWorkflow.id}/run`, undefined, 'run workflows'],
        ['POST', `/workflows/${ownersWorkflow.id}/adopt`, undefined, 'edit workflows'],
        ['DELETE', `/workflows/${ownersWorkflow.id}`, undefined, 'delete workflows'],
      ];
      for (const [method, path, body, words] of refusals) {
        const refused = await http(`${stack.url}${path}`, { method, cookie: member.cookie, body });
        expect({ path, method, status: refused.status, body: refused.body }).toEqual({
          path,
          method,
          status: 403,
          body: {
            error: `Only the workflow's owner and the workspace's owners may ${words} in this workspace`,
            code: 'FORBIDDEN',
          },
        });
      }
      const live = await http(`${stack.url}/workflows/${membersWorkflow.id}/live`, {
        method: 'POST',
        cookie: member.cookie,
      });
      expect(live.status).toBe(403);
      expect((live.body as { error: string }).error).toBe(
        "Only the workspace's owners may set workflows live or back to draft in this workspace",
      );
      const scheduled = await http(`${stack.url}/workflows/${membersWorkflow.id}/schedule`, {
        method: 'PUT',
        cookie: member.cookie,
        body: {
          is_enabled: true,
          timezone: 'UTC',
          schedule_type: 'interval',
          interval_minutes: 60,
        },
      });
      expect(scheduled.status).toBe(403);
      // The member still edits their own workflow, but may not take its approval out.
      const ownEdit = await http(`${stack.url}/workflows/${membersWorkflow.id}`, {
        method: 'PATCH',
        cookie: member.cookie,
        body: { name: 'Mine' },
      });
      expect(ownEdit.status).toBe(200);
      const approvalRemoved = await http(`${stack.url}/workflows/${membersWorkflow.id}`, {
        method: 'PATCH',
        cookie: member.cookie,
        body: { steps: [{ type: 'delay', settings: { seconds: 0 } }] },
      });
      expect(approvalRemoved.status).toBe(403);
      expect(approvalRemoved.body).toEqual({
        error: "Only the workspace's owners may change approval steps in this workspace",
        code: 'FORBIDDEN',
      });
      // A workspace API key is no one in particular: it runs nothing while runs need an owner.
      await expect(
        callApi(
          (await stack.as('mcp-registry')).bus,
          BUS_APIS.startRun,
          {
            workspaceId,
            workflowId: membersWorkflow.id,
            keyId: crypto.randomUUID(),
            input: {},
          },
          { timeoutMs: 10_000 },
        ),
      ).rejects.toThrow(
        new AppError(
          'FORBIDDEN',
          "Only the workflow's owner and the workspace's owners may run workflows in this workspace",
        ),
      );
      // A workspace owner may do all of it.
      const ownerLive = await http(`${stack.url}/workflows/${membersWorkflow.id}/draft`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(ownerLive.status).toBe(200);
    } finally {
      const reset = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
        method: 'PUT',
        cookie: owner.cookie,
        body: { permissions: DEFAULT_WORKFLOW_PERMISSIONS },
      });
      expect(reset.status).toBe(200);
    }
  });

  test("an outsider names another workspace's ids: adopt, hand-over and the permissions answer 404 and change nothing", async () => {
    const workflow = await createWorkflow(owner);
    const outsider = await signedInPerson(stack, 'owners-stranger');
    const tries: Array<[string, string, unknown]> = [
      ['POST', `/workflows/${workflow.id}/adopt`, undefined],
      ['PUT', `/workflows/${workflow.id}/owner`, { ownerId: outsider.userId }],
      ['GET', `/workspaces/${workspaceId}/workflow-permissions`, undefined],
      [
        'PUT',
        `/workspaces/${workspaceId}/workflow-permissions`,
        { permissions: { edit: 'workspace_owner' } },
      ],
    ];
    for (const [method, path, body] of tries) {
      const refused = await http(`${stack.url}${path}`, { method, cookie: outsider.cookie, body });
      expect({ method, path, status: refused.status }).toEqual({ method, path, status: 404 });
    }
    const after = await http(`${stack.url}/workflows/${workflow.id}`, { cookie: owner.cookie });
    expect((after.body as { workflow: Workflow }).workflow).toMatchObject({
      owner_id: owner.userId,
      runs_as: owner.userId,
    });
    const permissions = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      cookie: owner.cookie,
    });
    expect((permissions.body as { permissions: unknown }).permissions).toEqual(
      DEFAULT_WORKFLOW_PERMISSIONS,
    );
  });

  test('ownership is handed over by the owner or a workspace owner, to a member; whom it runs as stays until the new owner adopts it', async () => {
    const workflow = await createWorkflow(owner);
    const outsider = await signedInPerson(stack, 'owners-outsider');
    const byMember = await http(`${stack.url}/workflows/${workflow.id}/owner`, {
      method: 'PUT',
      cookie: member.cookie,
      body: { ownerId: member.userId },
    });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: "Only the workflow's owner and the workspace's owners may hand it over",
      code: 'FORBIDDEN',
    });
    const toOutsider = await http(`${stack.url}/workflows/${workflow.id}/owner`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { ownerId: outsider.userId },
    });
    expect(toOutsider.status).toBe(400);
    expect(toOutsider.body).toMatchObject({
      error: 'The new owner must be a member of the workspace',
      code: 'VALIDATION_ERROR',
    });
    const byOutsider = await http(`${stack.url}/workflows/${workflow.id}/owner`, {
      method: 'PUT',
      cookie: outsider.cookie,
      body: { ownerId: outsider.userId },
    });
    expect(byOutsider.status).toBe(404);
    const handed = await http(`${stack.url}/workflows/${workflow.id}/owner`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { ownerId: member.userId },
    });
    expect(handed.status).toBe(200);
    expect((handed.body as { workflow: Workflow }).workflow).toMatchObject({
      owner_id: member.userId,
      runs_as: owner.userId,
    });
    const adopted = await http(`${stack.url}/workflows/${workflow.id}/adopt`, {
      method: 'POST',
      cookie: member.cookie,
    });
    expect((adopted.body as { workflow: Workflow }).workflow.runs_as).toBe(member.userId);
  });
});
