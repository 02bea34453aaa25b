import { AppError, creditShortfallMessage, isFinalRunStatus, type StepType } from '@wap/contracts';
import type { IdSource } from '@wap/platform';
import type { CreditLedger } from '../credits/ledger';
import { runs, runSteps } from '../db/schema';
import { STEP_PRICES } from '../workflows/step-catalog';
import type { RunRepository } from './repository';
import type { LoadedRun, RunStore } from './run-rows';
import { onUntakenBranch } from './step-rows';

/** Why a run cannot be retried: the retry route's 409s and a replay's failed items. */
export const RETRY_REFUSALS = {
  notEnded: 'Only a run that ended can be retried',
  nothingFailed: 'Every step of this run succeeded: retry it from the start',
  iteration: "An iteration of a for_each is retried with its loop's run",
} as const;

/** Where a retry starts: the first step that did not succeed, or the first step. */
export type RetryFrom = 'failed_step' | 'start';

/**
 * The step a retry `from` starts at: 0 from the start, else the first step that did not succeed
 * (failed, or left by a cancel), a branch the run did not take aside; undefined when every step
 * succeeded.
 */
export function retryStartOf({ steps }: LoadedRun, from: RetryFrom): number | undefined {
  if (from === 'start') return 0;
  const index = steps.findIndex(
    (step) => step.status !== 'succeeded' && !onUntakenBranch(steps, step),
  );
  return index < 0 ? undefined : index;
}

/** Credits a retry from `startAt` needs: the prices of the steps it runs again. */
export function retryCostOf({ steps }: LoadedRun, startAt: number): number {
  return steps.slice(startAt).reduce((sum, step) => sum + STEP_PRICES[step.type as StepType], 0);
}

/**
 * Retries an ended run `from` its failed step or the start: 409 when it has not ended or nothing
 * failed, the shortfall when the workspace cannot pay for the steps it runs again.
 */
export async function retryEndedRun(
  deps: {
    runs: Pick<RunRepository, 'createRetry'>;
    ledger: Pick<CreditLedger, 'balanceOf'>;
    ids: IdSource;
    onRunCreated: () => void;
  },
  original: LoadedRun,
  retry: { from: RetryFrom; traceparent: string | null },
): Promise<{ runId: string } | { shortfall: string }> {
  if (!isFinalRunStatus(original.run.status)) {
    throw new AppError('CONFLICT', RETRY_REFUSALS.notEnded);
  }
  if (original.run.iteration !== null) throw new AppError('CONFLICT', RETRY_REFUSALS.iteration);
  const startAt = retryStartOf(original, retry.from);
  if (startAt === undefined) throw new AppError('CONFLICT', RETRY_REFUSALS.nothingFailed);
  const shortfall = creditShortfallMessage(
    await deps.ledger.balanceOf(original.run.workspaceId),
    retryCostOf(original, startAt),
  );
  if (shortfall) return { shortfall };
  const runId = deps.ids.uuid();
  await deps.runs.createRetry(original, { runId, startAt, traceparent: retry.traceparent });
  deps.onRunCreated();
  return { runId };
}

/**
 * Creates the retry of an ended run in one transaction: a new run of the same steps (as the
 * original had them), input and acting user, `retry_of` the original and one attempt more.
 * The steps before `startAt` are copied as they ended, with their outputs and no charge (they
 * do not run again); the rest are pending. Its credit cost is the price of the steps to run.
 */
export async function createRetryRun(
  { db, clock }: RunStore,
  original: LoadedRun,
  retry: { runId: string; startAt: number; traceparent: string | null },
): Promise<void> {
  const now = clock.now();
  const { run, steps } = original;
  await db.transaction(async (tx) => {
    await tx.insert(runs).values({
      id: retry.runId,
      workflowId: run.workflowId,
      workspaceId: run.workspaceId,
      status: 'queued',
      triggerType: run.triggerType,
      eventId: run.eventId,
      testEventId: run.testEventId,
      keyId: run.keyId,
      input: run.input,
      actingUserId: run.actingUserId,
      stopOnNodeFailure: run.stopOnNodeFailure,
      creditCost: retryCostOf(original, retry.startAt),
      inflightKey: null,
      notBefore: null,
      wakeAt: now,
      createdAt: now,
      traceparent: retry.traceparent,
      failedRunId: run.failedRunId,
      retryOf: run.id,
      attempt: run.attempt + 1,
      workflowVersion: run.workflowVersion,
      // A retry is nobody's child (the run that called the original has moved on): it keeps
      // no parent, root or depth.
    });
    if (steps.length === 0) return;
    await tx.insert(runSteps).values(
      steps.map((step) => {
        const kept = step.stepIndex < retry.startAt;
        return {
          runId: retry.runId,
          stepIndex: step.stepIndex,
          name: step.name,
          type: step.type,
          settings: step.settings,
          policy: step.policy,
          parentIndex: step.parentIndex,
          branch: step.branch,
          status: kept ? step.status : 'pending',
          input: kept ? step.input : null,
          output: kept ? step.output : null,
          startedAt: kept ? step.startedAt : null,
          finishedAt: kept ? step.finishedAt : null,
          durationMs: kept ? step.durationMs : null,
          attempts: kept ? step.attempts : [],
        };
      }),
    );
  });
}
