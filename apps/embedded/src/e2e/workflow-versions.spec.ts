import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run, Workflow, WorkflowVersion, WorkflowVersionSummary } from '@wap/contracts';
import { eventually } from '@wap/testing';
import {
  fundedWorkspace,
  http,
  newWorkspaceOwner,
  RUNTIMES,
  startStack,
  type Person,
  type TestStack,
} from './stack';

/**
 * Workflow versions (issue 43 item 4, decision 163) on both runtimes: every save that changes
 * what a workflow does is a version; live traffic runs the version Set live published while
 * newer ones are edited and run by hand; each run records its version; the history lists,
 * compares and restores versions; another workspace sees none of it.
 */
describe.each(RUNTIMES)('workflow versions on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let origin: string;
  const paths: string[] = [];
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'versions-owner', 100));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const call = async <T>(method: string, path: string, body?: unknown, cookie = owner.cookie) => {
    const answer = await http(`${stack.url}${path}`, { method, cookie, body });
    return { status: answer.status, body: answer.body as T };
  };
  const steps = (path: string) => [
    { type: 'http_request', name: 'call', settings: { method: 'POST', url: `${origin}${path}` } },
  ];
  const endedRun = (runId: string) =>
    eventually(async () => {
      const { body } = await call<{ run: Run }>('GET', `/runs/${runId}`);
      expect(body.run.status).toBe('succeeded');
      return body.run;
    }, 30_000);
  const runByHand = async (workflowId: string) =>
    endedRun((await call<{ runId: string }>('POST', `/workflows/${workflowId}/run`)).body.runId);
  /** A request to the live address, and the run it started. */
  async function liveRun(workflowId: string, webhookId: string): Promise<Run> {
    const before = new Set(
      (await call<{ runs: Run[] }>('GET', `/workflows/${workflowId}/runs`)).body.runs.map(
        (run) => run.id,
      ),
    );
    const hook = await http(`${stack.url}/webhooks/${webhookId}`, {
      method: 'POST',
      body: { order: 1 },
    });
    expect(hook.body).toMatchObject({ triggered: 1 });
    const run = await eventually(async () => {
      const { body } = await call<{ runs: Run[] }>('GET', `/workflows/${workflowId}/runs`);
      const started = body.runs.find((candidate) => !before.has(candidate.id));
      expect(started?.trigger.type).toBe('custom_webhook');
      return started as Run;
    }, 30_000);
    return endedRun(run.id);
  }

  test('live traffic runs the published version while newer ones are edited and run by hand', async () => {
    const created = await call<{ workflow: Workflow; webhook: { id: string } }>(
      'POST',
      '/workflows',
      { workspaceId, name: 'Versioned', trigger: { type: 'custom_webhook' }, steps: steps('/v1') },
    );
    expect(created.status).toBe(201);
    const { workflow, webhook } = created.body;
    expect(workflow).toMatchObject({ version: 1, live_version: null });
    expect((await runByHand(workflow.id)).workflow_version).toBe(1);
    const live = await call<{ workflow: Workflow }>('POST', `/workflows/${workflow.id}/live`);
    expect(live.body.workflow).toMatchObject({ status: 'live', version: 1, live_version: 1 });

    const edited = await call<{ workflow: Workflow }>('PATCH', `/workflows/${workflow.id}`, {
      steps: steps('/v2'),
    });
    expect(edited.body.workflow).toMatchObject({ version: 2, live_version: 1 });
    // The live address still runs version 1; Run runs the draft, version 2.
    const fromTraffic = await liveRun(workflow.id, webhook.id);
    expect(fromTraffic.workflow_version).toBe(1);
    expect(paths.at(-1)).toBe('/v1');
    expect((await runByHand(workflow.id)).workflow_version).toBe(2);
    expect(paths.at(-1)).toBe('/v2');

    await call('POST', `/workflows/${workflow.id}/live`);
    expect((await liveRun(workflow.id, webhook.id)).workflow_version).toBe(2);
    expect(paths.at(-1)).toBe('/v2');

    // A rename is a version; failure alerts are not part of what a run does.
    await call('PATCH', `/workflows/${workflow.id}`, { name: 'Versioned, renamed' });
    const alerts = await call<{ workflow: Workflow }>('PATCH', `/workflows/${workflow.id}`, {
      settings: { failureAlerts: { enabled: true, memberIds: [], intervalMinutes: 60 } },
    });
    expect(alerts.body.workflow).toMatchObject({ version: 3, live_version: 2 });

    const history = await call<{ versions: WorkflowVersionSummary[]; nextBefore: null }>(
      'GET',
      `/workflows/${workflow.id}/versions`,
    );
    expect(history.status).toBe(200);
    expect(history.body.versions).toEqual([
      expect.objectContaining({
        number: 3,
        changes: ['renamed to "Versioned, renamed"'],
        live: false,
        author_id: owner.userId,
      }),
      expect.objectContaining({ number: 2, changes: ['step 1 "call" changed'], live: true }),
      expect.objectContaining({ number: 1, changes: ['created'], restored_from: null }),
    ]);
    const second = await call<{ version: WorkflowVersion }>(
      'GET',
      `/workflows/${workflow.id}/versions/2`,
    );
    expect(second.body.version.definition.steps[0]?.settings).toMatchObject({
      url: `${origin}/v2`,
    });
    const diff = await call<{ differences: unknown[] }>(
      'GET',
      `/workflows/${workflow.id}/versions/2/diff?against=1`,
    );
    expect(diff.body).toEqual({
      from: 1,
      to: 2,
      differences: [
        { path: 'steps.0.settings.url', before: `${origin}/v1`, after: `${origin}/v2` },
      ],
    });

    const restored = await call<{ workflow: Workflow }>(
      'POST',
      `/workflows/${workflow.id}/versions/1/restore`,
    );
    expect(restored.status).toBe(200);
    expect(restored.body.workflow).toMatchObject({
      name: 'Versioned',
      version: 4,
      live_version: 2,
      steps: [
        expect.objectContaining({ settings: expect.objectContaining({ url: `${origin}/v1` }) }),
      ],
    });
    const latest = await call<{ versions: WorkflowVersionSummary[] }>(
      'GET',
      `/workflows/${workflow.id}/versions`,
    );
    expect(latest.body.versions[0]).toMatchObject({
      number: 4,
      restored_from: 1,
      changes: ['restored version 1', 'renamed to "Versioned"', 'step 1 "call" changed'],
    });
    // Restoring does not publish: the address runs version 2 until Set live.
    expect((await liveRun(workflow.id, webhook.id)).workflow_version).toBe(2);
  }, 120_000);

  test('another workspace sees no version; an unknown version is a 404', async () => {
    const { workflow } = (
      await call<{ workflow: Workflow }>('POST', '/workflows', {
        workspaceId,
        name: 'Private history',
        trigger: { type: 'custom_webhook' },
        steps: steps('/private'),
      })
    ).body;
    const stranger = await newWorkspaceOwner(stack, 'versions-stranger');
    for (const path of [
      `/workflows/${workflow.id}/versions`,
      `/workflows/${workflow.id}/versions/1`,
      `/workflows/${workflow.id}/versions/1/diff`,
    ]) {
      const answer = await call<{ code: string }>('GET', path, undefined, stranger.cookie);
      expect([path, answer.status, answer.body.code]).toEqual([path, 404, 'NOT_FOUND']);
    }
    const restore = await call<{ code: string }>(
      'POST',
      `/workflows/${workflow.id}/versions/1/restore`,
      undefined,
      stranger.cookie,
    );
    expect(restore.status).toBe(404);
    const missing = await call<{ error: string }>('GET', `/workflows/${workflow.id}/versions/9`);
    expect(missing).toEqual({
      status: 404,
      body: { error: 'Version 9 not found', code: 'NOT_FOUND' },
    });
  });
});
