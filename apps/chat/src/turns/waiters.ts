import type { Logger } from 'pino';
import { CHAT_SUBJECTS, TurnProgress } from '@wap/contracts';
import { decodeJson, type Bus } from '@wap/platform';
import type { StoredEvent, TurnRepository } from './repository';

/** Events one long poll answers at most. */
const BATCH_LIMIT = 500;
/**
 * A waiting poll reads the database again this often even without a wake-up: progress
 * messages travel without a stream, and one lost in a reconnect must not stall a reader.
 */
const RECHECK_MS = 2_000;

/**
 * Long polls on turn events, served by any replica: a poll with nothing new waits until the
 * replica running the turn says it stored more (TurnProgress on the bus), then reads them.
 */
export async function createTurnWaiters(deps: {
  bus: Bus;
  repository: TurnRepository;
  logger: Logger;
}) {
  const { repository } = deps;
  const wakers = new Map<string, Set<(progress: TurnProgress) => void>>();
  const subscription = deps.bus.subscribe(CHAT_SUBJECTS.turnProgress, (message) => {
    const parsed = TurnProgress.safeParse(decodeJson(message.data));
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring malformed turn progress');
      return;
    }
    for (const wake of wakers.get(parsed.data.requestId) ?? []) wake(parsed.data);
  });

  return {
    /** Events after `afterSeq`; waits up to `waitMs` for some when none are stored yet. */
    async next(requestId: string, afterSeq: number, waitMs: number): Promise<StoredEvent[]> {
      // Elapsed time, not the time of day: monotonic, whatever the clock says.
      const deadline = performance.now() + waitMs;
      for (;;) {
        let wake: (progress: TurnProgress) => void = () => undefined;
        const woken = new Promise<TurnProgress>((resolve) => {
          wake = resolve;
        });
        // Listening before reading: a write between the read and the wait still wakes it.
        const listeners = wakers.get(requestId) ?? new Set();
        listeners.add(wake);
        wakers.set(requestId, listeners);
        try {
          const events = await repository.eventsAfter(requestId, afterSeq, BATCH_LIMIT);
          const remaining = deadline - performance.now();
          if (events.length > 0 || remaining <= 0) return events;
          let timer: NodeJS.Timeout | undefined;
          const progress = await Promise.race([
            woken,
            new Promise<undefined>((resolve) => {
              timer = setTimeout(() => resolve(undefined), Math.min(remaining, RECHECK_MS));
            }),
          ]);
          clearTimeout(timer);
          // The events that woke the poll follow on from what it has: no read needed.
          if (progress?.events?.[0]?.seq === afterSeq + 1) return progress.events;
        } finally {
          listeners.delete(wake);
          if (listeners.size === 0 && wakers.get(requestId) === listeners) {
            wakers.delete(requestId);
          }
        }
      }
    },

    async stop(): Promise<void> {
      await subscription.unsubscribe();
    },
  };
}

export type TurnWaiters = Awaited<ReturnType<typeof createTurnWaiters>>;
