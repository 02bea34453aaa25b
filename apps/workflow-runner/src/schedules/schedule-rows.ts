import { createHash } from 'node:crypto';
import type { FireOutcome } from '@wap/contracts';
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
