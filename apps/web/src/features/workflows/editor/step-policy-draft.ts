import {
  MAX_STEP_TIMEOUT_MS,
  RETRYABLE_FAILURES,
  StepFailureRoute,
  StepRetryPolicy,
  CONTROL_STEPS_THAT_FAIL,
  isControlStepType,
  STEPS_WITHOUT_ATTEMPTS,
  type RetryableFailure,
  type Step,
} from '@wap/contracts';

/*
 * A step's retry, timeout and failure route as the editor holds them (issue 42, decision 155):
 * waits in seconds as a person types them, sent in milliseconds as the API takes them.
 */

export type FailureChoice = 'workflow_setting' | 'stop' | 'continue' | 'run_workflow';

export interface StepPolicyDraft {
  retryEnabled: boolean;
  attempts: string;
  backoff: 'fixed' | 'exponential';
  delaySeconds: string;
  maxDelaySeconds: string;
  jitter: boolean;
  on: RetryableFailure[];
  timeoutSeconds: string;
  onFailure: FailureChoice;
  failureWorkflowId: string;
}

/** The fields of a step's policy a message can be about, as the editor names them. */
export type PolicyErrors = Partial<Record<keyof StepPolicyDraft, string>>;

export const FAILURE_LABELS: Record<RetryableFailure, string> = {
  timeout: 'It timed out',
  network: 'It could not connect',
  server_error: 'A server error (5xx)',
  rate_limited: 'Too many requests (429; its Retry-After is waited)',
};

export const FAILURE_CHOICES: { value: FailureChoice; label: string }[] = [
  { value: 'workflow_setting', label: "As the workflow's setting says" },
  { value: 'stop', label: 'Stop the run' },
  { value: 'continue', label: 'Go on, with the error as the step output' },
  { value: 'run_workflow', label: 'Stop the run and start another workflow' },
];

/** Whether the step calls out: only those retry or time out. */
export function takesRetries(type: string): boolean {
  return !STEPS_WITHOUT_ATTEMPTS.includes(type);
}

/** Whether the step can fail on its own, so that a failure route applies to it. */
export function takesFailureRoute(type: string): boolean {
  return !isControlStepType(type) || CONTROL_STEPS_THAT_FAIL.includes(type);
}

const seconds = (ms: number | undefined) => (ms === undefined ? '' : String(ms / 1000));

export function policyDraftOf(
  step?: Pick<Step, 'retry' | 'timeoutMs' | 'onFailure'>,
): StepPolicyDraft {
  const retry = step?.retry;
  const onFailure = step?.onFailure;
  return {
    retryEnabled: retry !== undefined,
    attempts: String(retry?.attempts ?? 3),
    backoff: retry?.backoff ?? 'exponential',
    delaySeconds: seconds(retry?.delayMs ?? 1_000),
    maxDelaySeconds: seconds(retry?.maxDelayMs),
    jitter: retry?.jitter ?? true,
    on: [...(retry?.on ?? RETRYABLE_FAILURES)],
    timeoutSeconds: seconds(step?.timeoutMs),
    onFailure: onFailure?.action ?? 'workflow_setting',
    failureWorkflowId: onFailure?.action === 'run_workflow' ? onFailure.workflowId : '',
  };
}

/** Seconds as typed → whole milliseconds; NaN when it is no number, undefined when empty. */
function milliseconds(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? Math.round(value * 1000) : Number.NaN;
}

/** The policy fields of a step's request: only those the person set. */
export function policyFieldsOf(
  type: string,
  draft: StepPolicyDraft,
): Pick<Step, 'retry' | 'timeoutMs' | 'onFailure'> {
  const fields: Pick<Step, 'retry' | 'timeoutMs' | 'onFailure'> = {};
  if (takesRetries(type)) {
    if (draft.retryEnabled) {
      const maxDelayMs =
        draft.backoff === 'exponential' ? milliseconds(draft.maxDelaySeconds) : undefined;
      fields.retry = {
        attempts: Number(draft.attempts),
        backoff: draft.backoff,
        delayMs: milliseconds(draft.delaySeconds) ?? Number.NaN,
        ...(maxDelayMs !== undefined ? { maxDelayMs } : {}),
        jitter: draft.jitter,
        on: RETRYABLE_FAILURES.filter((failure) => draft.on.includes(failure)),
      };
    }
    const timeoutMs = milliseconds(draft.timeoutSeconds);
    if (timeoutMs !== undefined) fields.timeoutMs = timeoutMs;
  }
  if (!takesFailureRoute(type)) return fields;
  if (draft.onFailure === 'run_workflow') {
    fields.onFailure = { action: 'run_workflow', workflowId: draft.failureWorkflowId };
  } else if (draft.onFailure !== 'workflow_setting') {
    fields.onFailure = { action: draft.onFailure };
  }
  return fields;
}

/** Each policy field's problem, worded for a person. */
export function validatePolicy(type: string, draft: StepPolicyDraft): PolicyErrors {
  const errors: PolicyErrors = {};
  const fields = policyFieldsOf(type, draft);
  if (fields.retry) {
    const { attempts, delayMs, maxDelayMs, on } = fields.retry;
    if (!Number.isInteger(attempts) || attempts < 2 || attempts > 10) {
      errors.attempts = 'Use a whole number from 2 to 10 (the first attempt included).';
    }
    if (!Number.isFinite(delayMs) || delayMs < 100) {
      errors.delaySeconds = 'Wait at least 0.1 seconds.';
    } else if (!StepRetryPolicy.safeParse({ attempts: 2, delayMs }).success) {
      errors.delaySeconds = 'Wait at most one day.';
    }
    if (maxDelayMs !== undefined && (!Number.isFinite(maxDelayMs) || maxDelayMs < delayMs)) {
      errors.maxDelaySeconds = 'Use a number no smaller than the first wait.';
    }
    if (on.length === 0) errors.on = 'Choose at least one failure to retry.';
  }
  if (fields.timeoutMs !== undefined) {
    const { timeoutMs } = fields;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 100 || timeoutMs > MAX_STEP_TIMEOUT_MS) {
      errors.timeoutSeconds = `Use 0.1 to ${MAX_STEP_TIMEOUT_MS / 1000} seconds, or leave it empty.`;
    }
  }
  if (fields.onFailure && !StepFailureRoute.safeParse(fields.onFailure).success) {
    errors.failureWorkflowId = 'Choose the workflow to start.';
  }
  return errors;
}

/** The editor's field of an API path under a step (`retry.attempts`, `onFailure.workflowId`). */
export function policyFieldOfPath(path: string): keyof StepPolicyDraft | undefined {
  const fields: Record<string, keyof StepPolicyDraft> = {
    retry: 'attempts',
    'retry.attempts': 'attempts',
    'retry.delayMs': 'delaySeconds',
    'retry.maxDelayMs': 'maxDelaySeconds',
    'retry.on': 'on',
    timeoutMs: 'timeoutSeconds',
    onFailure: 'onFailure',
    'onFailure.workflowId': 'failureWorkflowId',
  };
  return fields[path];
}
