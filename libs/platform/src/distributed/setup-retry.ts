import type { JetStreamManager } from '@nats-io/jetstream';
import { TimeoutError } from '@nats-io/nats-core';

/** How long a new replicated stream may take to elect its leader before setup gives up. */
const LEADER_ELECTION_TIMEOUT_MS = 60_000;
const LEADER_POLL_MS = 250;

export function isTimeout(error: unknown): boolean {
  return error instanceof TimeoutError || (error instanceof Error && error.name === 'TimeoutError');
}

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
      if (!isTimeout(error) || attempt >= attempts) throw error;
    }
  }
}

/**
 * Resolves once the stream has a leader. A replicated stream that was just created answers its
 * info before its peers elected one, and a read or write of it then times out: a service
 * starting on a fresh cluster died on its first heartbeat or watch. A stream of a single server
 * has no cluster and is ready at once.
 */
export async function untilStreamLeader(jsm: JetStreamManager, stream: string): Promise<void> {
  const deadline = Date.now() + LEADER_ELECTION_TIMEOUT_MS;
  for (;;) {
    const info = await jsm.streams.info(stream).catch((error: unknown) => {
      if (isTimeout(error)) return null;
      throw error;
    });
    if (info && (info.cluster === undefined || info.cluster.leader)) return;
    if (Date.now() > deadline) {
      throw new Error(`stream ${stream} has no leader after ${LEADER_ELECTION_TIMEOUT_MS} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, LEADER_POLL_MS));
  }
}
