import { z } from 'zod';
import {
  MAX_RETRY_DELAY_MS,
  RetryableFailure,
  StepFailureRoute,
  StepRetryPolicy,
  type StepAttempt,
} from '@wap/contracts';

/*
 * A step's `retry`, `timeoutMs` and `onFailure` (issue 42, decision 155), as its run keeps them
 * from its creation: a workflow saved while runs are under way changes none of theirs.
 */

export const StepPolicy = z.object({
  retry: StepRetryPolicy.optional(),
  timeoutMs: z.number().int().positive().optional(),
  onFailure: StepFailureRoute.optional(),
});
export type StepPolicy = z.infer<typeof StepPolicy>;

/** One attempt that ended, as `run_steps.attempts` keeps it. */
export const StoredAttempt = z.object({
  number: z.number().int().min(1),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  durationMs: z.number().int().nonnegative(),
  error: z.string().nullable(),
  failure: RetryableFailure.nullable(),
  resumed: z.boolean(),
  /**
   * Whether the attempt may have reached the other side: a paid step's charge is given back only
   * when no attempt did (decision 127).
   */
  mayHaveLeft: z.boolean(),
});
export type StoredAttempt = z.infer<typeof StoredAttempt>;

// Built once: zod compiles a schema's parser on its first use.
const StoredPolicy = StepPolicy.nullable();
const StoredAttempts = z.array(StoredAttempt);

/** The stored policy read back through its schema: the database is not trusted blindly. */
export function storedPolicyOf(value: unknown): StepPolicy {
  return StoredPolicy.parse(value) ?? {};
}

export function storedAttemptsOf(value: unknown): StoredAttempt[] {
  return StoredAttempts.parse(value);
}

export function toStepAttempt(attempt: StoredAttempt): StepAttempt {
  return {
    number: attempt.number,
    started_at: attempt.startedAt,
    finished_at: attempt.finishedAt,
    duration_ms: attempt.durationMs,
    error: attempt.error,
    failure: attempt.failure,
    resumed: attempt.resumed,
  };
}

/** A failed attempt, as far as a retry cares. */
export interface AttemptFailure {
  failure?: RetryableFailure;
  /** The server's `Retry-After`, in milliseconds from now. */
  retryAfterMs?: number;
}

/**
 * The step's retry when the attempt numbered `attempt` (1-based), which failed so, is to be made
 * again; undefined when it is not.
 */
export function retryAfter(
  policy: StepPolicy,
  attempt: number,
  { failure }: AttemptFailure,
): StepRetryPolicy | undefined {
  const retry = policy.retry;
  if (!retry || failure === undefined) return undefined;
  return attempt < retry.attempts && retry.on.includes(failure) ? retry : undefined;
}

/**
 * How long to wait after the failed attempt numbered `attempt`: the backoff (`fixed`, or
 * `exponential` doubling from `delayMs` up to `maxDelayMs`), drawn between half of it and all of
 * it with `jitter`; a 429's `Retry-After`, when it asks for longer, wins. Never above a day.
 */
export function retryDelayMs(
  retry: StepRetryPolicy,
  attempt: number,
  { failure, retryAfterMs }: AttemptFailure,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(retry.maxDelayMs ?? MAX_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS);
  const base =
    retry.backoff === 'fixed'
      ? retry.delayMs
      : Math.min(retry.delayMs * 2 ** Math.min(attempt - 1, 40), ceiling);
  const backoff = retry.jitter ? Math.round(base / 2 + (random() * base) / 2) : base;
  const asked = failure === 'rate_limited' && retryAfterMs !== undefined ? retryAfterMs : 0;
  return Math.min(Math.max(backoff, asked), MAX_RETRY_DELAY_MS);
}

/**
 * What a failure that is not retried (again) does. Without `onFailure`, the workflow's
 * `stopOnNodeFailure` decides: stop, or go on with what the step brought back as its output.
 */
export type FailureRoute = StepFailureRoute | { action: 'continue_with_output' };

export function failureRouteOf(policy: StepPolicy, stopOnNodeFailure: boolean): FailureRoute {
  if (policy.onFailure) return policy.onFailure;
  return stopOnNodeFailure ? { action: 'stop' } : { action: 'continue_with_output' };
}

/** Whether a route ends the run: everything but going on. */
export function routeStopsRun(route: FailureRoute): boolean {
  return route.action === 'stop' || route.action === 'run_workflow';
}

/**
 * A `Retry-After` header's wait in milliseconds (seconds, or an HTTP date), undefined when it
 * says nothing usable.
 */
export function retryAfterMsOf(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^[0-9]{1,10}$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now.getTime());
}
