import { randomUUID } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { type Actor, type StepInput } from '@wap/contracts';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import { eventually } from '@wap/testing';
import { approvals, runs, runSteps } from '../db/schema';
import {
  actorFor,
  callRunnerRoute,
  createWebhookWorkflow,
  publishWebhookEvent,
  publishWorkspace,
  runReaching,
  runtimes,
  startRunner,
  webhookEventFor,
  type CreatedWorkflow,
  type RuntimeUnderTest,
} from '../testing/runner-harness';

const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(runtimes)('the run history on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let runner: ServiceHandle;

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = runtime.platform;
    runner = await startRunner(platform, {
      RUN_HISTORY_DAYS: 30,
      RUN_HISTORY_PRUNE_INTERVAL_MS: 1_000,
    });
  });
  afterAll(async () => {
    await runner.stop();
    await runtime.cleanup();
  });

  const createWorkflow = (owner: Actor, workspaceId: string, steps: StepInput[]) =>
    createWebhookWorkflow(platform, owner, workspaceId, steps);

  /** Starts a run as a webhook request does; its id. */
  async function startRun(created: CreatedWorkflow): Promise<string> {
    const runId = randomUUID();
    await publishWebhookEvent(
      platform,
      webhookEventFor(created, {}, { runId, inflightKey: null, notBefore: null }),
    );
    return runId;
  }

  const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

  async function backdate(runId: string, createdAt: Date, finishedAt: Date | null) {
    await platform.sql.db
      .update(runs)
      .set({ createdAt, ...(finishedAt ? { finishedAt } : {}) })
      .where(eq(runs.id, runId));
  }

  async function storedRunIds(runIds: string[]): Promise<string[]> {
    const rows = await platform.sql.db
      .select({ id: runs.id })
      .from(runs)
      .where(inArray(runs.id, runIds));
    return rows.map((row) => row.id).sort();
  }

  test('runs that ended longer ago than RUN_HISTORY_DAYS are deleted with their steps and approvals; runs still going and runs ended since are kept', async () => {
    const owner = actorFor('owner');
    const admin = actorFor('admin', { platformAdmin: true });
    const workspaceId = await publishWorkspace(platform, [owner]);
    const granted = await callRunnerRoute(platform, 'grant_credits', admin, {
      params: { workspaceId },
      body: { amount: 5, reason: 'spec' },
    });
    expect(granted.status).toBe(201);
    const quick = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const reviewed = await createWorkflow(owner, workspaceId, [
      { type: 'approval', name: 'review', settings: { reviewerIds: [owner.userId] } },
    ]);

    const endedLongAgo = await startRun(quick);
    const endedRecently = await startRun(quick);
    const createdLongAgoEndedRecently = await startRun(quick);
    const waitingLongAgo = await startRun(reviewed);
    const cancelledLongAgo = await startRun(reviewed);
    for (const runId of [endedLongAgo, endedRecently, createdLongAgoEndedRecently]) {
      await runReaching(platform, owner, runId, ['succeeded']);
    }
    for (const runId of [waitingLongAgo, cancelledLongAgo]) {
      await runReaching(platform, owner, runId, ['waiting_approval']);
    }
    await platform.sql.db
      .update(runs)
      .set({ status: 'cancelled' })
      .where(eq(runs.id, cancelledLongAgo));
    await backdate(endedLongAgo, daysAgo(40), daysAgo(40));
    await backdate(createdLongAgoEndedRecently, daysAgo(40), daysAgo(1));
    await backdate(waitingLongAgo, daysAgo(40), null);
    await backdate(cancelledLongAgo, daysAgo(31), daysAgo(31));
    const deleted = [endedLongAgo, cancelledLongAgo];
    const kept = [endedRecently, createdLongAgoEndedRecently, waitingLongAgo];
    const before = await platform.sql.db
      .select({ count: sql<number>`count(*)::int` })
      .from(approvals)
      .where(eq(approvals.runId, cancelledLongAgo));
    expect(before[0]?.count).toBe(1);

    await eventually(async () => expect(await storedRunIds(deleted)).toEqual([]), 10_000);
    expect(await storedRunIds(kept)).toEqual([...kept].sort());
    const steps = await platform.sql.db
      .select({ runId: runSteps.runId })
      .from(runSteps)
      .where(inArray(runSteps.runId, [...deleted, ...kept]));
    expect([...new Set(steps.map((step) => step.runId))].sort()).toEqual([...kept].sort());
    const approvalRuns = await platform.sql.db
      .select({ runId: approvals.runId })
      .from(approvals)
      .where(inArray(approvals.runId, [...deleted, ...kept]));
    expect(approvalRuns.map((row) => row.runId)).toEqual([waitingLongAgo]);
  });
});
