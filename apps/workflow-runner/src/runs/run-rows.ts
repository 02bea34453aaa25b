import { asc, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { RunStatus, StepRunStatus } from '@wap/contracts';
import type { Clock, SqlDatabase } from '@wap/platform';
import { runSteps, type runs } from '../db/schema';
import { anyOfUuids } from '../db/sql-executor';
import type { WorkflowRow } from '../workflows/repository';

/** What the run store's functions work with. */
export interface RunStore {
  db: SqlDatabase;
  clock: Clock;
}

export type RunRow = typeof runs.$inferSelect;
export type RunStepRow = typeof runSteps.$inferSelect;

const FINAL_STEP_STATUSES: readonly StepRunStatus[] = ['succeeded', 'failed', 'skipped'];

export function isFinalStepStatus(status: string): boolean {
  return (FINAL_STEP_STATUSES as readonly string[]).includes(status);
}

/** A run with its steps, as stored. */
export interface LoadedRun {
  run: RunRow;
  steps: RunStepRow[];
}

/**
 * Runs created already leased to the executor `owner`: at most `count` of them, of those due
 * within `aheadMs` of their creation, each leased for `leaseMs` from its due time (a run decided
 * ahead stays its decider's until then, and is any replica's after that if the decider died).
 */
export interface CreationLease {
  owner: string;
  count: number;
  aheadMs: number;
  leaseMs: number;
}

export interface NewRun {
  runId: string;
  workflow: WorkflowRow;
  trigger:
    | { type: 'custom_webhook'; eventId: string; failedRunId?: undefined }
    | { type: 'provider_event'; eventId: string }
    | { type: 'mcp'; keyId: string }
    | { type: 'manual'; testEventId: string | null }
    | { type: 'schedule' }
    /** A failed step's `onFailure: run_workflow`: the failure is its body, as a webhook's. */
    | { type: 'custom_webhook'; eventId: null; failedRunId: string }
    /** A call_workflow step's run of another workflow. */
    | { type: 'call_workflow' };
  /** The run that called this one: `waits` when its step waits for this run's end. */
  caller?: {
    runId: string;
    /** The run started from outside the caller descends from (or the caller itself). */
    rootRunId: string;
    stepIndex: number;
    depth: number;
    waits: boolean;
  };
  input: unknown;
  inflightKey: string | null;
  notBefore: Date | null;
  /** The trace of what asked for the run (`activeTraceparent` where it was asked). */
  traceparent: string | null;
}

/** A step that started and ended without a write in between (a free, local step). */
export interface EndedStep {
  stepIndex: number;
  /** `skipped`: a step of a branch not taken. */
  status: 'succeeded' | 'failed' | 'skipped';
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** What a run did since its last write; see `writeProgress`. */
export interface RunProgress {
  /** When the queued run started, if it started since the last write. */
  started: Date | null;
  endedSteps: EndedStep[];
  /** `skipRemaining`: some steps may still be pending and are to be marked skipped. */
  finish: { status: RunStatus; error: string | null; skipRemaining: boolean } | null;
}

export const iso = (date: Date | null) => date?.toISOString() ?? null;

export const RowIds = z.object({ rows: z.array(z.object({ id: z.string() })) });

/** The steps of each run, in step order. */
export async function stepsOfRuns(
  db: SqlDatabase,
  runIds: readonly string[],
): Promise<Map<string, RunStepRow[]>> {
  const byRun = new Map<string, RunStepRow[]>();
  if (runIds.length === 0) return byRun;
  const rows = await db
    .select()
    .from(runSteps)
    .where(sql`${runSteps.runId} = ${anyOfUuids(runIds)}`)
    .orderBy(asc(runSteps.runId), asc(runSteps.stepIndex));
  for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
  return byRun;
}
