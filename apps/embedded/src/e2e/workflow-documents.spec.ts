import type { Workflow, WorkflowDocument } from '@wap/contracts';
import {
  addWorkspaceMember,
  fundedWorkspace,
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type Person,
  type TestStack,
} from './stack';

/**
 * Export and import (issue 43 item 5, decision 164) on both runtimes: a workspace's workflows
 * leave as one document and come into another workspace as drafts with new ids, a failure route
 * between them following them; the same checks as a save refuse what cannot work there; a
 * stranger exports and imports nothing.
 */
describe.each(RUNTIMES)('workflow documents on the %s runtime', (runtime) => {
  let stack: TestStack;
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    stack = await startStack(runtime);
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'documents-owner', 10));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const call = async <T>(method: string, path: string, body?: unknown, cookie = owner.cookie) => {
    const answer = await http(`${stack.url}${path}`, { method, cookie, body });
    return { status: answer.status, body: answer.body as T };
  };
  const create = async (name: string, steps: unknown[]) =>
    (
      await call<{ workflow: Workflow }>('POST', '/workflows', {
        workspaceId,
        name,
        trigger: { type: 'custom_webhook', customResponse: { enabled: true, body: 'thanks' } },
        steps,
        settings: { stopOnNodeFailure: false },
      })
    ).body.workflow;

  test('a workspace exports its workflows and another imports them, a failure route following', async () => {
    const handler = await create('Tell ops', [
      { type: 'delay', name: 'wait', settings: { seconds: 1 } },
    ]);
    await create('Charge', [
      {
        type: 'http_request',
        name: 'charge',
        settings: { method: 'POST', url: 'https://payments.example.com/{{= webhook.id }}' },
        onFailure: { action: 'run_workflow', workflowId: handler.id },
      },
    ]);
    const exported = await call<WorkflowDocument>(
      'GET',
      `/workspaces/${workspaceId}/workflows/export`,
    );
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({ format: 'wap.workflows', version: 1 });
    expect(exported.body.workflows.map((entry) => entry.name).sort()).toEqual([
      'Charge',
      'Tell ops',
    ]);

    const other = await newWorkspaceOwner(stack, 'documents-importer');
    const imported = await call<{ workflows: { workflow: Workflow; webhook: { id: string } }[] }>(
      'POST',
      '/workflows/import',
      { workspaceId: other.workspaceId, document: exported.body },
      other.cookie,
    );
    expect(imported.status).toBe(201);
    const byName = new Map(
      imported.body.workflows.map(({ workflow }) => [workflow.name, workflow]),
    );
    const charge = byName.get('Charge');
    const tellOps = byName.get('Tell ops');
    expect(charge).toMatchObject({
      workspace_id: other.workspaceId,
      status: 'draft',
      version: 1,
      trigger: { customResponse: { enabled: true, body: 'thanks' } },
      settings: { stopOnNodeFailure: false, failureAlerts: null },
      steps: [
        {
          name: 'charge',
          settings: { url: 'https://payments.example.com/{{= webhook.id }}' },
          onFailure: { action: 'run_workflow', workflowId: tellOps?.id },
        },
      ],
    });
    expect(charge?.id).not.toBe(exported.body.workflows.find((e) => e.name === 'Charge')?.ref);
    const history = await call<{ versions: { changes: string[] }[] }>(
      'GET',
      `/workflows/${charge?.id}/versions`,
      undefined,
      other.cookie,
    );
    expect(history.body.versions).toEqual([expect.objectContaining({ changes: ['imported'] })]);

    // Exported again, the document says the same thing of what it does.
    const again = await call<WorkflowDocument>(
      'GET',
      `/workflows/${charge?.id}/export`,
      undefined,
      other.cookie,
    );
    const [entry] = again.body.workflows;
    const original = exported.body.workflows.find((e) => e.name === 'Charge');
    expect({ ...entry, ref: undefined, steps: undefined }).toEqual({
      ...original,
      ref: undefined,
      steps: undefined,
    });
    expect(entry?.steps[0]?.settings).toEqual(original?.steps[0]?.settings);
  });

  test('what cannot work in the workspace is refused as a save would be, naming the entry', async () => {
    const reviewer = await addWorkspaceMember(
      stack,
      { cookie: owner.cookie, workspaceId },
      'documents-reviewer',
    );
    await create('Needs a reviewer', [
      { type: 'approval', name: 'ok?', settings: { reviewerIds: [reviewer.userId] } },
    ]);
    const exported = await call<WorkflowDocument>(
      'GET',
      `/workspaces/${workspaceId}/workflows/export`,
    );
    const other = await newWorkspaceOwner(stack, 'documents-refused');
    const index = exported.body.workflows.findIndex((e) => e.name === 'Needs a reviewer');
    const refused = await call<{ code: string; details: { path: string; message: string }[] }>(
      'POST',
      '/workflows/import',
      { workspaceId: other.workspaceId, document: exported.body },
      other.cookie,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([
      {
        path: `body.document.workflows.${index}.steps.0.settings.reviewerIds.0`,
        message: 'Not a member of this workspace',
      },
    ]);
    // Nothing of the document was made.
    const listed = await call<{ workflows: Workflow[] }>(
      'GET',
      `/workflows?workspaceId=${other.workspaceId}`,
      undefined,
      other.cookie,
    );
    expect(listed.body.workflows).toEqual([]);

    // A failure route naming another workspace's workflow starts nothing of theirs.
    const foreign = await call<{ details: { path: string; message: string }[] }>(
      'POST',
      '/workflows/import',
      {
        workspaceId: other.workspaceId,
        document: {
          ...exported.body,
          workflows: [
            {
              ref: exported.body.workflows[0]?.ref,
              name: 'Routes a failure elsewhere',
              trigger: { type: 'custom_webhook' },
              steps: [
                {
                  type: 'http_request',
                  name: 'call',
                  settings: { method: 'POST', url: 'https://example.com' },
                  onFailure: {
                    action: 'run_workflow',
                    workflowId: exported.body.workflows[1]?.ref,
                  },
                },
              ],
            },
          ],
        },
      },
      other.cookie,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.details).toEqual([
      {
        path: 'body.document.workflows.0.steps.0.onFailure.workflowId',
        message: 'No such workflow in this workspace',
      },
    ]);

    const malformed = await call<{ code: string }>(
      'POST',
      '/workflows/import',
      { workspaceId: other.workspaceId, document: { ...exported.body, format: 'n8n' } },
      other.cookie,
    );
    expect([malformed.status, malformed.body.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  test('a stranger exports nothing and imports into no workspace of others', async () => {
    const stranger = await newWorkspaceOwner(stack, 'documents-stranger');
    const some = (
      await call<{ workflows: Workflow[] }>('GET', `/workflows?workspaceId=${workspaceId}`)
    ).body.workflows[0];
    for (const path of [
      `/workspaces/${workspaceId}/workflows/export`,
      `/workflows/${some?.id}/export`,
    ]) {
      const answer = await call<{ code: string }>('GET', path, undefined, stranger.cookie);
      expect([path, answer.status, answer.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const exported = await call<WorkflowDocument>('GET', `/workflows/${some?.id}/export`);
    const into = await call<{ code: string }>(
      'POST',
      '/workflows/import',
      { workspaceId, document: exported.body },
      stranger.cookie,
    );
    expect([into.status, into.body.code]).toEqual([404, 'NOT_FOUND']);
  });
});
