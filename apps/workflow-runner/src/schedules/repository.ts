import { desc, eq } from 'drizzle-orm';
import type { Clock, SqlDatabase } from '@wap/platform';
import { scheduleFires, workflowSchedules } from '../db/schema';
import type { RunRepository } from '../runs/repository';
import type { CreationLease } from '../runs/run-rows';
import { fireDueSchedules } from './fire-pass';
import type { DecidedBatch, FireRow, ScheduleInput, ScheduleRow } from './schedule-rows';
import { nextFireAfter, type ScheduleTiming } from './time-rules';

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

    /**
     * Saves the schedule; its owed fire is computed again from now (a change never replays). A
     * save resumes a schedule that paused itself and counts failures in a row afresh.
     */
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
        failuresCountedFrom: now,
        pausedAt: null,
        pausedReason: null,
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

    fireDue: (
      now: Date,
      limit: number,
      ahead: { aheadMs: number; lease: CreationLease | undefined },
    ): Promise<DecidedBatch> => fireDueSchedules({ db, runs: deps.runs }, now, limit, ahead),
  };
}
