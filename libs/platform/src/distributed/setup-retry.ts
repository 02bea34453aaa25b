import { TimeoutError } from '@nats-io/nats-core';

/**
 * Runs a JetStream call that sets up a stream, bucket or consumer, again when it times out. A
 * new replicated stream waits for its peers to elect a leader, which can outlast the client's
 * request timeout when many are made at once (every service starting on a fresh cluster): the
 * process then died at start. Each call wrapped here is idempotent, so a retry after a timeout
 * whose work did happen finds it done.
 */
export async function retryingSetupTimeouts<Result>(
  work: () => Promise<Result>,
  attempts = 4,
): Promise<Result> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const timedOut =
        error instanceof TimeoutError || (error instanceof Error && error.name === 'TimeoutError');
      if (!timedOut || attempt >= attempts) throw error;
    }
  }
}
