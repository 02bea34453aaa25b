import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { FINAL_RUN_STATUSES, RUN_CANCELLED } from '@wap/contracts';
import { approvals, runs, runSteps } from '../db/schema';
import { settleRelatives } from './run-relatives';
import type { RunRow, RunStore } from './run-rows';

const unfinished = () =>
  sql`${runs.status} not in (${sql.join(
    FINAL_RUN_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  )})`;

/**
 * Cancels a run that no runner executes (queued, asleep in a delay or a retry's backoff, waiting
 * for an approval, or held by a runner whose lease lapsed) in one transaction: the run is
 * cancelled, the step it was in failed with RUN_CANCELLED, the steps after it skipped and a
 * pending approval closed. Undefined when a runner holds the run or it ended; the
 * row lock orders it with a claim, so a run is either claimed or cancelled, never both.
 */
export async function cancelIdleRun(
  { db, clock }: RunStore,
  runId: string,
): Promise<RunRow | undefined> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const [cancelled] = await tx
      .update(runs)
      .set({
        status: 'cancelled',
        error: RUN_CANCELLED,
        finishedAt: now,
        wakeAt: null,
        leaseOwner: null,
        leaseUntil: null,
        cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, ${now.toISOString()}::timestamptz)`,
      })
      .where(
        and(
          eq(runs.id, runId),
          unfinished(),
          or(isNull(runs.leaseOwner), lt(runs.leaseUntil, now)),
        ),
      )
      .returning();
    if (!cancelled) return undefined;
    await tx
      .update(runSteps)
      .set({
        status: 'failed',
        error: RUN_CANCELLED,
        finishedAt: now,
        resumeAt: null,
        durationMs: sql`greatest(0, floor(extract(epoch from (${now.toISOString()}::timestamptz - coalesce(${runSteps.startedAt}, ${now.toISOString()}::timestamptz))) * 1000))::integer`,
      })
      .where(and(eq(runSteps.runId, runId), inArray(runSteps.status, ['running', 'waiting'])));
    await tx
      .update(runSteps)
      .set({ status: 'skipped' })
      .where(and(eq(runSteps.runId, runId), eq(runSteps.status, 'pending')));
    // Closed as a rejection by nobody with RUN_CANCELLED as its comment: a `cancelled` status
    // would widen the published approval replies (decision 156).
    await tx
      .update(approvals)
      .set({ status: 'rejected', decidedAt: now, decidedBy: null, comment: RUN_CANCELLED })
      .where(and(eq(approvals.runId, runId), eq(approvals.status, 'pending')));
    await settleRelatives(tx, [runId], now.toISOString());
    return cancelled;
  });
}

/** Marks an unfinished run's cancel as asked for; false when it has ended. */
export async function requestRunCancel({ db, clock }: RunStore, runId: string): Promise<boolean> {
  const marked = await db
    .update(runs)
    .set({
      cancelRequestedAt: sql`coalesce(${runs.cancelRequestedAt}, ${clock.now().toISOString()}::timestamptz)`,
    })
    .where(and(eq(runs.id, runId), unfinished()))
    .returning({ id: runs.id });
  return marked.length > 0;
}

/** Whether a cancel of the run was asked for: what a runner checks before it stops a step. */
export async function isRunCancelRequested({ db }: RunStore, runId: string): Promise<boolean> {
  const [row] = await db
    .select({ at: runs.cancelRequestedAt })
    .from(runs)
    .where(eq(runs.id, runId));
  return row?.at != null;
}
