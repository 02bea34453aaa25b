import { and, eq, isNull, sql } from 'drizzle-orm';
import {
  FINAL_RUN_STATUSES,
  checkRunningHours,
  creditShortfallMessage,
  type RunningHours,
} from '@wap/contracts';
import type { SqlDatabase } from '@wap/platform';
import { creditLedger, runs, scheduleFires, workflows, workflowSchedules } from '../db/schema';
import { anyOfUuids } from '../db/sql-executor';
import type { RunRepository } from '../runs/repository';
import type { CreationLease, LoadedRun, NewRun } from '../runs/run-rows';
import type { WorkflowRow } from '../workflows/repository';
import {
  runIdOfFire,
  timingOf,
  type DecidedBatch,
  type DecidedFire,
  type ScheduleRow,
} from './schedule-rows';
import { catchUp, decideFire, localDay } from './time-rules';

type Transaction = Parameters<Parameters<SqlDatabase['transaction']>[0]>[0];

/** What deciding a batch's fires reads besides the schedules: one statement per table. */
interface FireContext {
  workflowOf: Map<string, WorkflowRow>;
  lastRunStatusOf: Map<string, string>;
  balanceOf: Map<string, number>;
}

/** What a batch writes: the runs to create, the fires to record, the schedules to move on. */
interface FireWrites {
  newRuns: NewRun[];
  fireRows: (typeof scheduleFires.$inferInsert)[];
  updates: {
    workflow_id: string;
    enabled: boolean;
    next_fire_at: string | null;
    runs_day: string | null;
    runs_on_day: number;
    last_run_id: string | null;
  }[];
  decided: DecidedFire[];
}

/**
 * Decides the fires owed by `now + aheadMs` of up to `limit` schedules in one transaction
 * that holds their rows (`for update skip locked`: replicas take different schedules and
 * never wait on each other). Each fire is recorded once (its key is the schedule and the
 * fire time) and its run is created in the same transaction with an id derived from both, so
 * a crash at any point leaves either all of a batch or none of it, and a fire decided again
 * creates no second run. Reads and writes are one statement per table for the whole batch.
 *
 * A fire decided ahead of its due time (decision 139) creates its run waiting for that time,
 * leased by `lease` to the deciding executor. A schedule whose previous run has not ended is
 * not decided ahead: whether it overlaps is known only at the due time.
 */
export async function fireDueSchedules(
  deps: { db: SqlDatabase; runs: RunRepository },
  now: Date,
  limit: number,
  ahead: { aheadMs: number; lease: CreationLease | undefined },
): Promise<DecidedBatch> {
  const horizon = new Date(now.getTime() + ahead.aheadMs);
  return deps.db.transaction(async (tx) => {
    const due = await takeDueSchedules(tx, now, horizon, limit);
    if (due.length === 0) return { taken: 0, decided: [], created: [] };
    const context = await readFireContext(tx, due);
    const writes: FireWrites = { newRuns: [], fireRows: [], updates: [], decided: [] };
    for (const schedule of due) decideScheduleFire(schedule, context, now, writes);
    const created = await writeFires(tx, deps.runs, writes, ahead.lease);
    return { taken: due.length, decided: writes.decided, created };
  });
}

/**
 * The enabled schedules owed a fire by `horizon`, oldest first, locked for this transaction; one
 * whose previous run has not ended is taken only once its fire is due, not ahead.
 */
async function takeDueSchedules(
  tx: Transaction,
  now: Date,
  horizon: Date,
  limit: number,
): Promise<ScheduleRow[]> {
  return tx
    .select()
    .from(workflowSchedules)
    .where(
      and(
        eq(workflowSchedules.isEnabled, true),
        sql`${workflowSchedules.nextFireAt} <= ${horizon.toISOString()}::timestamptz`,
        sql`(${workflowSchedules.nextFireAt} <= ${now.toISOString()}::timestamptz
          or not exists (select 1 from ${runs} where ${runs.id} = ${workflowSchedules.lastRunId}
            and ${runs.status} not in (${sql.join(
              FINAL_RUN_STATUSES.map((status) => sql`${status}`),
              sql`, `,
            )})))`,
      ),
    )
    .orderBy(workflowSchedules.nextFireAt)
    .limit(limit)
    .for('update', { skipLocked: true });
}

async function readFireContext(tx: Transaction, due: readonly ScheduleRow[]): Promise<FireContext> {
  const workflowRows = await tx
    .select()
    .from(workflows)
    .where(
      and(
        sql`${workflows.id} = ${anyOfUuids(due.map((schedule) => schedule.workflowId))}`,
        isNull(workflows.deletedAt),
      ),
    );
  const lastRunIds = due.flatMap((schedule) => (schedule.lastRunId ? [schedule.lastRunId] : []));
  const lastRuns =
    lastRunIds.length === 0
      ? []
      : await tx
          .select({ id: runs.id, status: runs.status })
          .from(runs)
          .where(sql`${runs.id} = ${anyOfUuids(lastRunIds)}`);
  const balances = await tx
    .select({
      workspaceId: creditLedger.workspaceId,
      amount: sql<string>`coalesce(sum(${creditLedger.amount}), 0)`,
    })
    .from(creditLedger)
    .where(
      sql`${creditLedger.workspaceId} = ${anyOfUuids([
        ...new Set(due.map((schedule) => schedule.workspaceId)),
      ])}`,
    )
    .groupBy(creditLedger.workspaceId);
  return {
    workflowOf: new Map(workflowRows.map((row) => [row.id, row])),
    lastRunStatusOf: new Map(lastRuns.map((run) => [run.id, run.status])),
    balanceOf: new Map(balances.map((row) => [row.workspaceId, Number(row.amount)])),
  };
}

/** Decides one schedule's owed fire (the rules of `decideFire`) and adds what it writes. */
function decideScheduleFire(
  schedule: ScheduleRow,
  { workflowOf, lastRunStatusOf, balanceOf }: FireContext,
  now: Date,
  writes: FireWrites,
): void {
  const workflow = workflowOf.get(schedule.workflowId);
  if (!workflow) {
    // A deleted workflow's schedule stops; its past fires stay on record.
    writes.updates.push({
      workflow_id: schedule.workflowId,
      enabled: false,
      next_fire_at: null,
      runs_day: schedule.runsDay,
      runs_on_day: schedule.runsOnDay,
      last_run_id: schedule.lastRunId,
    });
    return;
  }
  const { fireAt, missed, next } = catchUp(timingOf(schedule), schedule.nextFireAt ?? now, now);
  const fireDay = localDay(fireAt, schedule.timezone);
  const runsOnFireDay = schedule.runsDay === fireDay ? schedule.runsOnDay : 0;
  const previousStatus = schedule.lastRunId ? lastRunStatusOf.get(schedule.lastRunId) : undefined;
  const decision = decideFire({
    workflowLive: workflow.status === 'live',
    runsOnFireDay,
    maxRunsPerDay: schedule.maxRunsPerDay,
    previousRunActive:
      previousStatus !== undefined &&
      !(FINAL_RUN_STATUSES as readonly string[]).includes(previousStatus),
    creditShortfall: creditShortfallMessage(
      balanceOf.get(schedule.workspaceId) ?? 0,
      workflow.creditCost,
    ),
    window: checkRunningHours(workflow.runningHours as RunningHours | null, fireAt),
    queueOutsideWindow: workflow.queueOutsideWindow,
  });
  const startsRun = decision.outcome === 'started' || decision.outcome === 'queued_for_window';
  const runId = startsRun ? runIdOfFire(schedule.workflowId, fireAt) : null;
  if (runId) {
    writes.newRuns.push({
      runId,
      workflow,
      trigger: { type: 'schedule' },
      input: { scheduledFor: fireAt.toISOString() },
      inflightKey: null,
      // Decided ahead, the run waits for its due time (or the window's opening).
      notBefore: decision.notBefore ?? (fireAt > now ? fireAt : null),
      // A fire is decided by the scheduler's loop, not asked for: its run starts a trace.
      traceparent: null,
    });
  }
  writes.fireRows.push({
    workflowId: schedule.workflowId,
    fireAt,
    outcome: decision.outcome,
    runId,
    detail: decision.detail,
    missedBefore: missed,
    recordedAt: now,
  });
  writes.updates.push({
    workflow_id: schedule.workflowId,
    enabled: true,
    next_fire_at: next?.toISOString() ?? null,
    runs_day: fireDay,
    runs_on_day: runsOnFireDay + (startsRun ? 1 : 0),
    last_run_id: runId ?? schedule.lastRunId,
  });
  writes.decided.push({
    workflowId: schedule.workflowId,
    fireAt,
    outcome: decision.outcome,
    runId,
    missed,
  });
}

async function writeFires(
  tx: Transaction,
  runRepository: RunRepository,
  { newRuns, fireRows, updates }: FireWrites,
  lease: CreationLease | undefined,
): Promise<LoadedRun[]> {
  const created = await runRepository.createMany(newRuns, tx, lease);
  if (fireRows.length > 0) await tx.insert(scheduleFires).values(fireRows).onConflictDoNothing();
  await tx.execute(sql`
    update ${workflowSchedules} as s
    set is_enabled = u.enabled, next_fire_at = u.next_fire_at, runs_day = u.runs_day,
      runs_on_day = u.runs_on_day, last_run_id = u.last_run_id
    from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as u(workflow_id uuid,
      enabled boolean, next_fire_at timestamptz, runs_day text, runs_on_day int,
      last_run_id uuid)
    where s.workflow_id = u.workflow_id`);
  return created;
}
