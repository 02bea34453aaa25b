import { AppError, ApprovalResponse, ApprovalsResponse, type Actor } from '@wap/contracts';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import {
  actorFor,
  callRunnerRoute,
  createWebhookWorkflow,
  publishWorkspace,
  runReaching,
  runtimes,
  startRunner,
  type RuntimeUnderTest,
} from '../testing/runner-harness';

describe.each(runtimes)('approvals on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let runner: ServiceHandle;
  let owner: Actor;
  let reviewer: Actor;
  let bystander: Actor;
  let outsider: Actor;
  let workspaceId: string;

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = runtime.platform;
    runner = await startRunner(platform);
    owner = actorFor('approvals-owner');
    reviewer = actorFor('approvals-reviewer');
    bystander = actorFor('approvals-bystander');
    outsider = actorFor('approvals-outsider');
    workspaceId = await publishWorkspace(platform, [owner, reviewer, bystander]);
    await publishWorkspace(platform, [outsider]);
    const admin = actorFor('approvals-admin', { platformAdmin: true });
    const granted = await callRunnerRoute(platform, 'grant_credits', admin, {
      params: { workspaceId },
      body: { amount: 100, reason: 'approvals spec' },
    });
    expect(granted.status).toBe(201);
  });
  afterAll(async () => {
    await runner.stop();
    await runtime.cleanup();
  });

  /** A run of approval → delay, paused at its approval. */
  async function pausedRun() {
    const created = await createWebhookWorkflow(platform, owner, workspaceId, [
      {
        type: 'approval',
        name: 'sign_off',
        settings: { reviewerIds: [owner.userId, reviewer.userId], message: 'Ship it?' },
      },
      { type: 'delay', name: 'after', settings: { seconds: 0 } },
    ]);
    const started = await callRunnerRoute(platform, 'run_workflow', owner, {
      params: { id: created.workflow.id },
    });
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    await runReaching(platform, owner, runId, ['waiting_approval']);
    const listed = await callRunnerRoute(platform, 'list_approvals', reviewer, {
      query: { workspaceId },
    });
    const approval = ApprovalsResponse.parse(listed.body).approvals.find(
      (candidate) => candidate.run_id === runId,
    );
    if (!approval) throw new Error('no pending approval for the run');
    return { runId, approval, workflowId: created.workflow.id };
  }

  /** A route's answer as the gateway writes it: an error reply as its status and Error body. */
  async function answerOf(call: Promise<{ status: number; body?: unknown }>) {
    try {
      return await call;
    } catch (error) {
      if (error instanceof AppError) return { status: error.status, body: error.toBody() };
      throw error;
    }
  }

  const decide = (actor: Actor, id: string, decision: 'approve' | 'reject', comment?: string) =>
    answerOf(
      callRunnerRoute(platform, `${decision}_approval`, actor, {
        params: { id },
        body: comment === undefined ? {} : { comment },
      }),
    );

  test('an approval step pauses the run; a reviewer approves and the run succeeds', async () => {
    const { runId, approval, workflowId } = await pausedRun();
    expect(approval).toEqual({
      id: approval.id,
      workspace_id: workspaceId,
      workflow_id: workflowId,
      workflow_name: expect.any(String),
      run_id: runId,
      step_index: 0,
      step_name: 'sign_off',
      message: 'Ship it?',
      reviewer_ids: [owner.userId, reviewer.userId],
      status: 'pending',
      decided_by: null,
      decided_at: null,
      comment: null,
      created_at: expect.any(String),
    });
    const notMine = await callRunnerRoute(platform, 'list_approvals', bystander, {
      query: { workspaceId },
    });
    expect(ApprovalsResponse.parse(notMine.body).approvals).toEqual([]);

    const approved = await decide(reviewer, approval.id, 'approve', 'Looks good');
    expect(approved.status).toBe(200);
    expect(ApprovalResponse.parse(approved.body).approval).toMatchObject({
      status: 'approved',
      decided_by: reviewer.userId,
      comment: 'Looks good',
    });
    const run = await runReaching(platform, owner, runId, ['succeeded']);
    expect(run.steps.map((step) => step.status)).toEqual(['succeeded', 'succeeded']);

    const again = await decide(owner, approval.id, 'reject');
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'This approval was already approved', code: 'CONFLICT' });
  });

  test('a rejection fails the run and skips the steps after it', async () => {
    const { runId, approval } = await pausedRun();
    const rejected = await decide(owner, approval.id, 'reject', 'Not now');
    expect(rejected.status).toBe(200);
    const run = await runReaching(platform, owner, runId, ['failed']);
    expect(run.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
    expect(run.steps[0]?.error).toBe('Rejected by a reviewer: Not now');
    expect((await decide(reviewer, approval.id, 'approve')).status).toBe(409);
  });

  test('the first of two decisions at once wins; the other gets 409', async () => {
    const { approval } = await pausedRun();
    const replies = await Promise.all([
      decide(owner, approval.id, 'approve'),
      decide(reviewer, approval.id, 'reject'),
    ]);
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
  });

  test('only reviewers decide: a member who is not one gets 403, an outsider 404', async () => {
    const { approval } = await pausedRun();
    const member = await decide(bystander, approval.id, 'approve');
    expect(member.status).toBe(403);
    expect(member.body).toEqual({
      error: 'Only the reviewers of this approval can decide it',
      code: 'FORBIDDEN',
    });
    const stranger = await decide(outsider, approval.id, 'approve');
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ error: 'Approval not found', code: 'NOT_FOUND' });
    const list = await answerOf(
      callRunnerRoute(platform, 'list_approvals', outsider, { query: { workspaceId } }),
    );
    expect(list.status).toBe(404);
  });
});
