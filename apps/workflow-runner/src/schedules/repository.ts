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
import type { RunRepository } from '../runs/repository';
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
     * Decides every fire owed at `now` (up to `limit` schedules), each schedule in a
     * transaction of its own that holds its row: replicas take different schedules, a fire is
     * recorded once (its row's key is the schedule and the fire time), and its run is created
     * in the same transaction, so a crash at any point leaves either both or neither.
     */
    async fireDue(now: Date, limit: number): Promise<DecidedFire[]> {
      const decided: DecidedFire[] = [];
      for (let index = 0; index < limit; index += 1) {
        const fire = await db.transaction(async (tx) => {
          const [schedule] = await tx
            .select()
            .from(workflowSchedules)
            .where(
              and(
                eq(workflowSchedules.isEnabled, true),
                sql`${workflowSchedules.nextFireAt} <= ${now.toISOString()}::timestamptz`,
              ),
            )
            .orderBy(workflowSchedules.nextFireAt)
            .limit(1)
            .for('update', { skipLocked: true });
          if (!schedule?.nextFireAt) return null;
          const timing = timingOf(schedule);
          const { fireAt, missed, next } = catchUp(timing, schedule.nextFireAt, now);
          const [workflow] = await tx
            .select()
            .from(workflows)
            .where(and(eq(workflows.id, schedule.workflowId), isNull(workflows.deletedAt)));
          if (!workflow) {
            // A deleted workflow's schedule stops; its past fires stay on record.
            await tx
              .update(workflowSchedules)
              .set({ isEnabled: false, nextFireAt: null })
              .where(eq(workflowSchedules.workflowId, schedule.workflowId));
            return { skip: true as const };
          }
          const fireDay = localDay(fireAt, schedule.timezone);
          const runsOnFireDay = schedule.runsDay === fireDay ? schedule.runsOnDay : 0;
          const previous = schedule.lastRunId
            ? (
                await tx
                  .select({ status: runs.status })
                  .from(runs)
                  .where(eq(runs.id, schedule.lastRunId))
              )[0]
            : undefined;
          const [balance] = await tx
            .select({ amount: sql<string>`coalesce(sum(${creditLedger.amount}), 0)` })
            .from(creditLedger)
            .where(eq(creditLedger.workspaceId, schedule.workspaceId));
          const decision = decideFire({
            workflowLive: workflow.status === 'live',
            runsOnFireDay,
            maxRunsPerDay: schedule.maxRunsPerDay,
            previousRunActive:
              previous !== undefined && !FINAL_RUN_STATUSES.includes(previous.status),
            creditShortfall: creditShortfallMessage(
              Number(balance?.amount ?? 0),
              workflow.creditCost,
            ),
            window: checkRunningHours(workflow.runningHours as RunningHours | null, fireAt),
            queueOutsideWindow: workflow.queueOutsideWindow,
          });
          const startsRun =
            decision.outcome === 'started' || decision.outcome === 'queued_for_window';
          const runId = startsRun ? runIdOfFire(schedule.workflowId, fireAt) : null;
          if (runId) {
            await deps.runs.createMany(
              [
                {
                  runId,
                  workflow,
                  trigger: { type: 'schedule' },
                  input: { scheduledFor: fireAt.toISOString() },
                  inflightKey: null,
                  notBefore: decision.notBefore,
                },
              ],
              tx,
            );
          }
          await tx
            .insert(scheduleFires)
            .values({
              workflowId: schedule.workflowId,
              fireAt,
              outcome: decision.outcome,
              runId,
              detail: decision.detail,
              missedBefore: missed,
              recordedAt: now,
            })
            .onConflictDoNothing();
          await tx
            .update(workflowSchedules)
            .set({
              nextFireAt: next,
              runsDay: fireDay,
              runsOnDay: runsOnFireDay + (startsRun ? 1 : 0),
              lastRunId: runId ?? schedule.lastRunId,
            })
            .where(eq(workflowSchedules.workflowId, schedule.workflowId));
          return {
            skip: false as const,
            fire: {
              workflowId: schedule.workflowId,
              fireAt,
              outcome: decision.outcome,
              runId,
              missed,
            },
          };
        });
        if (fire === null) break;
        if (!fire.skip) decided.push(fire.fire);
      }
      return decided;
    },
  };
}
