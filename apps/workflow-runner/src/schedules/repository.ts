import { createHash } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import {
  checkRunningHours,
  creditShortfallMessage,
  type FireOutcome,
  type RunningHours,
} from '@wap/contracts';
import type { Clock, SqlDatabase } from '@wap/platform';
import { creditLedger, runs, scheduleFires, workflows, workflowSchedules } from '../db/schema';
import { anyOfUuids } from '../db/sql-executor';
import type { RunRepository } from '../runs/repository';
import type { CreationLease, LoadedRun, NewRun } from '../runs/run-rows';
import { catchUp, decideFire, localDay, nextFireAfter, type ScheduleTiming } from './time-rules';

export type ScheduleRow = typeof workflowSchedules.$inferSelect;
export type FireRow = typeof scheduleFires.$inferSelect;

const FINAL_RUN_STATUSES = ['succeeded', 'failed', 'cancelled'];

export function timingOf(row: ScheduleRow): ScheduleTiming {
  return {
    scheduleType: row.scheduleType as ScheduleTiming['scheduleType'],
    cronExpression: row.cronExpression,
    intervalMinutes: row.intervalMinutes,
    timezone: row.timezone,
    anchorAt: row.anchorAt,
  };
}

/**
 * The run of one fire: the same id for the same schedule and fire time on every replica and
 * after every crash, so that a fire decided twice creates one run (a uuid-shaped SHA-256).
 */
export function runIdOfFire(workflowId: string, fireAt: Date): string {
  const hex = createHash('sha256')
    .update(`schedule:${workflowId}:${fireAt.toISOString()}`)
    .digest('hex');
  const variant = ((parseInt(hex.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface ScheduleInput {
  isEnabled: boolean;
  timezone: string;
  scheduleType: 'cron' | 'interval';
  cronExpression: string | null;
  intervalMinutes: number | null;
  maxRunsPerDay: number | null;
}

/** One fire as decided by a pass, for logs and tests. */
export interface DecidedFire {
  workflowId: string;
  fireAt: Date;
  outcome: FireOutcome;
  runId: string | null;
  missed: number;
}

/** What one batch decided, and the runs it created. */
export interface DecidedBatch {
  /** Schedules the batch took: a batch that took its limit may have left others owed. */
  taken: number;
  decided: DecidedFire[];
  created: LoadedRun[];
}

export type ScheduleRepository = ReturnType<typeof createScheduleRepository>;

export function createScheduleRepository(deps: {
  db: SqlDatabase;
  clock: Clock;
  runs: RunRepository;
}) {
  const { db, clock } = deps;

  return {
    async find(workflowId: string): Promise<ScheduleRow | undefined> {
      const [row] = await db
        .select()
        .from(workflowSchedules)
        .where(eq(workflowSchedules.workflowId, workflowId));
      return row;
    },

    /** Saves the schedule; its owed fire is computed again from now (a change never replays). */
    async save(
      workflowId: string,
      workspaceId: string,
      input: ScheduleInput,
    ): Promise<ScheduleRow> {
      const now = clock.now();
      const timing: ScheduleTiming = { ...input, anchorAt: now };
      const values = {
        workflowId,
        workspaceId,
        ...input,
        anchorAt: now,
        nextFireAt: input.isEnabled ? nextFireAfter(timing, now) : null,
        updatedAt: now,
      };
      const [row] = await db
        .insert(workflowSchedules)
        .values(values)
        .onConflictDoUpdate({ target: workflowSchedules.workflowId, set: values })
        .returning();
      if (!row) throw new Error('upsert returned no schedule');
      return row;
    },

    async fires(workflowId: string, limit: number): Promise<FireRow[]> {
      return db
        .select()
        .from(scheduleFires)
        .where(eq(scheduleFires.workflowId, workflowId))
        .orderBy(desc(scheduleFires.fireAt))
        .limit(limit);
    },

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
    async fireDue(
      now: Date,
      limit: number,
      ahead: { aheadMs: number; lease: CreationLease | undefined },
    ): Promise<DecidedBatch> {
      const horizon = new Date(now.getTime() + ahead.aheadMs);
      return db.transaction(async (tx) => {
        const due = await tx
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
        if (due.length === 0) return { taken: 0, decided: [], created: [] };
        const workflowRows = await tx
          .select()
          .from(workflows)
          .where(
            and(
              sql`${workflows.id} = ${anyOfUuids(due.map((schedule) => schedule.workflowId))}`,
              isNull(workflows.deletedAt),
            ),
          );
        const workflowOf = new Map(workflowRows.map((row) => [row.id, row]));
        const lastRunIds = due.flatMap((schedule) =>
          schedule.lastRunId ? [schedule.lastRunId] : [],
        );
        const lastRuns =
          lastRunIds.length === 0
            ? []
            : await tx
                .select({ id: runs.id, status: runs.status })
                .from(runs)
                .where(sql`${runs.id} = ${anyOfUuids(lastRunIds)}`);
        const statusOf = new Map(lastRuns.map((run) => [run.id, run.status]));
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
        const balanceOf = new Map(balances.map((row) => [row.workspaceId, Number(row.amount)]));

        const decided: DecidedFire[] = [];
        const newRuns: NewRun[] = [];
        const fireRows: (typeof scheduleFires.$inferInsert)[] = [];
        const updates: {
          workflow_id: string;
          enabled: boolean;
          next_fire_at: string | null;
          runs_day: string | null;
          runs_on_day: number;
          last_run_id: string | null;
        }[] = [];
        for (const schedule of due) {
          const workflow = workflowOf.get(schedule.workflowId);
          if (!workflow) {
            // A deleted workflow's schedule stops; its past fires stay on record.
            updates.push({
              workflow_id: schedule.workflowId,
              enabled: false,
              next_fire_at: null,
              runs_day: schedule.runsDay,
              runs_on_day: schedule.runsOnDay,
              last_run_id: schedule.lastRunId,
            });
            continue;
          }
          const { fireAt, missed, next } = catchUp(
            timingOf(schedule),
            schedule.nextFireAt ?? now,
            now,
          );
          const fireDay = localDay(fireAt, schedule.timezone);
          const runsOnFireDay = schedule.runsDay === fireDay ? schedule.runsOnDay : 0;
          const previousStatus = schedule.lastRunId ? statusOf.get(schedule.lastRunId) : undefined;
          const decision = decideFire({
            workflowLive: workflow.status === 'live',
            runsOnFireDay,
            maxRunsPerDay: schedule.maxRunsPerDay,
            previousRunActive:
              previousStatus !== undefined && !FINAL_RUN_STATUSES.includes(previousStatus),
            creditShortfall: creditShortfallMessage(
              balanceOf.get(schedule.workspaceId) ?? 0,
              workflow.creditCost,
            ),
            window: checkRunningHours(workflow.runningHours as RunningHours | null, fireAt),
            queueOutsideWindow: workflow.queueOutsideWindow,
          });
          const startsRun =
            decision.outcome === 'started' || decision.outcome === 'queued_for_window';
          const runId = startsRun ? runIdOfFire(schedule.workflowId, fireAt) : null;
          if (runId) {
            newRuns.push({
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
          fireRows.push({
            workflowId: schedule.workflowId,
            fireAt,
            outcome: decision.outcome,
            runId,
            detail: decision.detail,
            missedBefore: missed,
            recordedAt: now,
          });
          updates.push({
            workflow_id: schedule.workflowId,
            enabled: true,
            next_fire_at: next?.toISOString() ?? null,
            runs_day: fireDay,
            runs_on_day: runsOnFireDay + (startsRun ? 1 : 0),
            last_run_id: runId ?? schedule.lastRunId,
          });
          decided.push({
            workflowId: schedule.workflowId,
            fireAt,
            outcome: decision.outcome,
            runId,
            missed,
          });
        }
        const created = await deps.runs.createMany(newRuns, tx, ahead.lease);
        if (fireRows.length > 0)
          await tx.insert(scheduleFires).values(fireRows).onConflictDoNothing();
        await tx.execute(sql`
          update ${workflowSchedules} as s
          set is_enabled = u.enabled, next_fire_at = u.next_fire_at, runs_day = u.runs_day,
            runs_on_day = u.runs_on_day, last_run_id = u.last_run_id
          from jsonb_to_recordset(${JSON.stringify(updates)}::jsonb) as u(workflow_id uuid,
            enabled boolean, next_fire_at timestamptz, runs_day text, runs_on_day int,
            last_run_id uuid)
          where s.workflow_id = u.workflow_id`);
        return { taken: due.length, decided, created };
      });
    },
  };
}
