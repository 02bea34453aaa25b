import {
  stepIdempotencyKey,
  type Run,
  type RunStatus,
  type StepAttempt,
  type StepRunStatus,
  type StepType,
} from '@wap/contracts';
import { iso, type RunRow, type RunStepRow } from './run-rows';
import { storedAttemptsOf, toStepAttempt } from './step-policy';

/**
 * The API shape of a run. A `summary` (the run list) leaves out the trigger body and each step's
 * input and output: a page of full runs could outgrow one bus message (1 MiB); GET /runs/{id}
 * has them.
 */
export function toRun(
  row: RunRow,
  steps: readonly RunStepRow[],
  options: { summary?: boolean } = {},
): Run {
  const detail = <T>(value: T): T | undefined => (options.summary ? undefined : value);
  return {
    id: row.id,
    workflow_id: row.workflowId,
    workspace_id: row.workspaceId,
    status: row.status as RunStatus,
    trigger: {
      type: row.triggerType as Run['trigger']['type'],
      event_id: row.eventId,
      test_event_id: row.testEventId,
      key_id: row.keyId,
      failed_run_id: row.failedRunId,
      parent_run_id: row.parentRunId,
      iteration: row.iteration,
    },
    input: detail(row.input),
    steps: steps.map((step) => ({
      index: step.stepIndex,
      name: step.name,
      type: step.type as StepType,
      status: step.status as StepRunStatus,
      input: detail(step.input),
      output: detail(step.output),
      error: step.error,
      credits_charged: step.creditsCharged,
      started_at: iso(step.startedAt),
      finished_at: iso(step.finishedAt),
      duration_ms: step.durationMs,
      // Left out of a summary as input and output are (RunListItem has no attempts).
      attempts: detail(storedAttemptsOf(step.attempts).map(toStepAttempt)) as StepAttempt[],
      next_attempt_at:
        step.type !== 'delay' && step.status === 'running' ? iso(step.resumeAt) : null,
      resumed: step.resumed,
      idempotency_key: stepIdempotencyKey(row.id, step.stepIndex),
      parent_index: step.parentIndex,
      branch: step.branch,
    })),
    credits_charged: row.creditsCharged,
    error: row.error,
    not_before: iso(row.notBefore),
    created_at: row.createdAt.toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
    cancel_requested_at: iso(row.cancelRequestedAt),
    retry_of: row.retryOf,
    attempt: row.attempt,
    workflow_version: row.workflowVersion,
  };
}
