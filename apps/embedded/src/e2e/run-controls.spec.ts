import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RUN_CANCELLED, type Run, type Workflow } from '@wap/contracts';
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

/**
 * A run's controls on both runtimes. Cancel (issue 42 item 3, decision 156): a running
 * http_request is aborted (the server sees its connection closed), a waiting approval is closed
 * (its reviewer is told so), a delay ends; no later step runs or is charged; a run that ended
 * first answers its own status; outsiders cannot cancel. Retry (item 1, decision 157): from the
 * failed step, the steps that succeeded keep their outputs and are not charged or run again;
 * from the start, every step runs again.
 */
describe.each(RUNTIMES)('cancelling and retrying runs on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let origin: string;
  /** Requests to /hang, each resolved once its connection closed. */
  const hanging: Promise<void>[] = [];
  const arrived: string[] = [];
  let failedOnce = false;
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      arrived.push(req.url ?? '');
      req.resume();
      if (req.url === '/fails-once' && !failedOnce) {
        failedOnce = true;
        res.writeHead(500).end();
        return;
      }
      if (req.url === '/hang') {
        hanging.push(new Promise((resolve) => res.once('close', () => resolve())));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'cancel-owner', 100));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const request = (path: string, name: string) => ({
    type: 'http_request',
    name,
    settings: { method: 'POST', url: `${origin}${path}` },
  });

  async function started(steps: unknown[]): Promise<string> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name: 'Cancelled', trigger: { type: 'custom_webhook' }, steps },
    });
    expect(created.status).toBe(201);
    const { workflow } = created.body as { workflow: Workflow };
    const run = await http(`${stack.url}/workflows/${workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(run.status).toBe(202);
    return (run.body as { runId: string }).runId;
  }

  const runOf = async (runId: string) =>
    ((await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie })).body as { run: Run }).run;

  const cancel = (runId: string, who: Person = owner) =>
    http(`${stack.url}/runs/${runId}/cancel`, { method: 'POST', cookie: who.cookie });

  test('a running http_request is aborted, the steps after it neither run nor cost', async () => {
    const runId = await started([request('/hang', 'call'), request('/after', 'after')]);
    await eventually(async () => expect(hanging).toHaveLength(1), 30_000);
    const cancelled = await cancel(runId);
    expect(cancelled.status).toBe(200);
    const { run } = cancelled.body as { run: Run };
    expect(run).toMatchObject({ status: 'cancelled', error: RUN_CANCELLED });
    expect(run.cancel_requested_at).not.toBeNull();
    expect(run.steps.map(({ status, error }) => ({ status, error }))).toEqual([
      { status: 'failed', error: RUN_CANCELLED },
      { status: 'skipped', error: null },
    ]);
    expect(run.steps.map((step) => step.credits_charged)).toEqual([1, 0]);
    // The request itself was stopped: the server saw its connection close.
    await hanging[0];
    expect(arrived).not.toContain('/after');
  });

  test('a waiting approval is closed and its reviewer told so; a delay is ended', async () => {
    const approvalRun = await started([
      { type: 'approval', name: 'review', settings: { reviewerIds: [owner.userId] } },
      request('/after-approval', 'after'),
    ]);
    await eventually(async () =>
      expect((await runOf(approvalRun)).status).toBe('waiting_approval'),
    );
    const approvals = await http(`${stack.url}/approvals?workspaceId=${workspaceId}`, {
      cookie: owner.cookie,
    });
    const approval = (
      approvals.body as { approvals: { id: string; run_id: string }[] }
    ).approvals.find((candidate) => candidate.run_id === approvalRun);
    expect(approval).toBeDefined();
    const closed = await cancel(approvalRun);
    expect((closed.body as { run: Run }).run.status).toBe('cancelled');
    const decided = await http(`${stack.url}/approvals/${approval?.id ?? ''}/approve`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {},
    });
    expect(decided.status).toBe(409);
    expect(decided.body).toEqual({
      error: 'This approval was closed: its run was cancelled',
      code: 'CONFLICT',
    });

    const delayRun = await started([
      { type: 'delay', name: 'wait', settings: { seconds: 3_600 } },
      request('/after-delay', 'after'),
    ]);
    await eventually(async () => expect((await runOf(delayRun)).steps[0]?.status).toBe('running'));
    const ended = await cancel(delayRun);
    expect((ended.body as { run: Run }).run).toMatchObject({
      status: 'cancelled',
      steps: [{ status: 'failed' }, { status: 'skipped' }],
    });
    expect(arrived).not.toContain('/after-approval');
    expect(arrived).not.toContain('/after-delay');
  });

  test('a run that ended first answers its own status; an outsider cannot cancel', async () => {
    const runId = await started([request('/quick', 'quick')]);
    await eventually(async () => expect((await runOf(runId)).status).toBe('succeeded'));
    const late = await cancel(runId);
    expect(late.status).toBe(200);
    expect((late.body as { run: Run }).run.status).toBe('succeeded');

    const outsider = await signedInPerson(stack, 'cancel-outsider');
    const waiting = await started([{ type: 'delay', name: 'wait', settings: { seconds: 3_600 } }]);
    expect((await cancel(waiting, outsider)).status).toBe(404);
    const member = await addWorkspaceMember(
      stack,
      { cookie: owner.cookie, workspaceId },
      'cancel-member',
    );
    const restricted = await http(`${stack.url}/workspaces/${workspaceId}/workflow-permissions`, {
      method: 'PUT',
      cookie: owner.cookie,
      body: { permissions: { run: 'workflow_owner' } },
    });
    expect(restricted.status).toBe(200);
    expect((await cancel(waiting, member)).status).toBe(403);
    expect((await runOf(waiting)).status).toBe('running');
  });

  test('a failed run is retried from its failed step: earlier outputs kept, not charged again', async () => {
    const runId = await started([
      request('/first', 'first'),
      request('/fails-once', 'flaky'),
      request('/last', 'last'),
    ]);
    const failed = await eventually(async () => {
      const run = await runOf(runId);
      expect(run.status).toBe('failed');
      return run;
    });
    expect(failed.credits_charged).toBe(2);
    const retried = await http(`${stack.url}/runs/${runId}/retry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {},
    });
    expect(retried.status).toBe(202);
    const retryId = (retried.body as { runId: string }).runId;
    const retry = await eventually(async () => {
      const run = await runOf(retryId);
      expect(run.status).toBe('succeeded');
      return run;
    });
    expect(retry).toMatchObject({ retry_of: runId, attempt: 2, credits_charged: 2 });
    expect(retry.steps.map((step) => [step.status, step.credits_charged])).toEqual([
      ['succeeded', 0],
      ['succeeded', 1],
      ['succeeded', 1],
    ]);
    expect(retry.steps[0]?.output).toEqual(failed.steps[0]?.output);
    expect(arrived.filter((path) => path === '/first')).toHaveLength(1);

    const again = await http(`${stack.url}/runs/${retryId}/retry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {},
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'Every step of this run succeeded: retry it from the start',
      code: 'CONFLICT',
    });
    const fromStart = await http(`${stack.url}/runs/${retryId}/retry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { from: 'start' },
    });
    expect(fromStart.status).toBe(202);
    const third = await eventually(async () => {
      const run = await runOf((fromStart.body as { runId: string }).runId);
      expect(run.status).toBe('succeeded');
      return run;
    });
    expect(third).toMatchObject({ retry_of: retryId, attempt: 3, credits_charged: 3 });
    expect(arrived.filter((path) => path === '/first')).toHaveLength(2);
    // Each run's page lists the runs that retried it.
    const retriesOf = async (id: string) =>
      (
        (await http(`${stack.url}/runs/${id}`, { cookie: owner.cookie })).body as {
          retries: { id: string; attempt: number; status: string }[];
        }
      ).retries;
    expect(await retriesOf(runId)).toEqual([
      expect.objectContaining({ id: retryId, attempt: 2, status: 'succeeded' }),
    ]);
    expect(await retriesOf(retryId)).toEqual([
      expect.objectContaining({ id: third.id, attempt: 3, status: 'succeeded' }),
    ]);
    expect(await retriesOf(third.id)).toEqual([]);
  });

  test('a run still going cannot be retried; an outsider cannot retry', async () => {
    const waiting = await started([{ type: 'delay', name: 'wait', settings: { seconds: 3_600 } }]);
    const early = await http(`${stack.url}/runs/${waiting}/retry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {},
    });
    expect(early.status).toBe(409);
    const outsider = await signedInPerson(stack, 'retry-outsider');
    const foreign = await http(`${stack.url}/runs/${waiting}/retry`, {
      method: 'POST',
      cookie: outsider.cookie,
      body: {},
    });
    expect(foreign.status).toBe(404);
  });
});
