import { AppError } from '@wap/contracts';
import { createRateLimiter } from './rate-limiter';

/** How many requests a minute one person, and one workspace in all, may make of one kind. */
export interface ActorRateLimits {
  perUserPerMinute: number;
  perWorkspacePerMinute: number;
}

/**
 * A 429 RATE_LIMITED whose details say when to retry; the HTTP edge turns `retryAfterSeconds`
 * into the `Retry-After` header (decision 124).
 */
export function rateLimited(message: string, retryAfterMs: number): AppError {
  const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('RATE_LIMITED', message, { details: { retryAfterSeconds } });
}

/** `Retry-After` for an error that says when to retry, else nothing. */
export function retryAfterHeaderOf(error: AppError): Record<string, string> | undefined {
  if (error.code !== 'RATE_LIMITED') return undefined;
  const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' ? { 'retry-after': String(seconds) } : undefined;
}

/**
 * Token buckets per person and per workspace, each holding a minute's worth and refilled
 * evenly: a burst up to the limit, then the limit's pace. Kept in this replica's memory, as the
 * webhook limit is (decision 42): a deployment's limit is this times its replicas.
 */
export function createActorRateLimit(
  limits: ActorRateLimits,
  what: string,
  nowMs: () => number = Date.now,
): { take(workspaceId: string, userId: string): void } {
  const bucketsOf = (perMinute: number) =>
    createRateLimiter({
      perSecond: perMinute / 60,
      burst: perMinute,
      maxAddresses: 100_000,
      nowMs,
    });
  const perUser = bucketsOf(limits.perUserPerMinute);
  const perWorkspace = bucketsOf(limits.perWorkspacePerMinute);
  return {
    take(workspaceId, userId) {
      const person = perUser.take(userId);
      if (!person.allowed) {
        throw rateLimited(`Too many ${what}; retry later`, person.retryAfterMs);
      }
      const workspace = perWorkspace.take(workspaceId);
      if (!workspace.allowed) {
        throw rateLimited(
          `Too many ${what} in this workspace; retry later`,
          workspace.retryAfterMs,
        );
      }
    },
  };
}
