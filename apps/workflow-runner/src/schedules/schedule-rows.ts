import type { FireOutcome } from '@wap/contracts';
import { uuidOfName } from '../db/name-uuid';
import type { scheduleFires, workflowSchedules } from '../db/schema';
import type { LoadedRun } from '../runs/run-rows';
import type { ScheduleTiming } from './time-rules';

export type ScheduleRow = typeof workflowSchedules.$inferSelect;
export type FireRow = typeof scheduleFires.$inferSelect;

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
 * after every crash, so that a fire decided twice creates one run.
 */
export function runIdOfFire(workflowId: string, fireAt: Date): string {
  return uuidOfName(`schedule:${workflowId}:${fireAt.toISOString()}`);
}

export interface ScheduleInput {
  isEnabled: boolean;
  timezone: string;
  scheduleType: 'cron' | 'interval';
  cronExpression: string | null;
  intervalMinutes: number | null;
  maxRunsPerDay: number | null;
  pauseAfterFailures: number | null;
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
