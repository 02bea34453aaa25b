import type { Logger } from 'pino';

/** The first pass comes this soon after start at the latest. */
const FIRST_PASS_WITHIN_MS = 60_000;

/**
 * Runs `pass` every `intervalMs`, one at a time; the first soon after start, so that a replica
 * restarted more often than the interval still makes its passes. A failed pass is logged with
 * `failureMessage`, and the next one comes at the interval. The signal is aborted by stop(),
 * which then waits for the pass under way.
 */
export function startPeriodicPasses(deps: {
  intervalMs: number;
  pass: (signal: AbortSignal) => Promise<void>;
  failureMessage: string;
  logger: Logger;
}): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      current = deps
        .pass(stopping.signal)
        .catch((error: unknown) => {
          deps.logger.warn({ err: error }, deps.failureMessage);
        })
        .finally(() => {
          if (!stopping.signal.aborted) schedule(deps.intervalMs);
        });
    }, delayMs);
    timer.unref();
  };
  schedule(Math.min(deps.intervalMs, FIRST_PASS_WITHIN_MS));

  return {
    async stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
