import type { Logger } from 'pino';
import type { Clock } from '@wap/platform';
import type { RunRepository } from './repository';

/** Runs deleted per statement: a pass holds no lock on many rows at once. */
const DELETE_BATCH = 1_000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the run history to RUN_HISTORY_DAYS: every interval, the runs that ended longer ago
 * than that go, with their steps and approvals (decision 46). Runs still going are kept however
 * old they are. A failed pass is logged and the next one picks up where it stopped.
 */
export function startRunHistoryPruner(deps: {
  runs: Pick<RunRepository, 'deleteEndedBefore'>;
  keepDays: number;
  intervalMs: number;
  clock: Clock;
  logger: Logger;
}): { stop(): Promise<void> } {
  const { runs, clock, logger } = deps;
  let stopping = false;
  let pass: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;

  async function deleteEndedRuns(): Promise<void> {
    const endedBefore = new Date(clock.now().getTime() - deps.keepDays * DAY_MS);
    let deleted = 0;
    while (!stopping) {
      const batch = await runs.deleteEndedBefore(endedBefore, DELETE_BATCH);
      deleted += batch;
      if (batch < DELETE_BATCH) break;
    }
    if (deleted > 0) {
      logger.info({ deleted, endedBefore }, 'runs older than the run history deleted');
    }
  }

  const schedule = (delayMs: number) => {
    timer = setTimeout(() => {
      pass = deleteEndedRuns()
        .catch((error: unknown) => {
          logger.warn({ err: error }, 'deleting old runs failed; retrying at the next pass');
        })
        .finally(() => {
          if (!stopping) schedule(deps.intervalMs);
        });
    }, delayMs);
    timer.unref();
  };
  // The first pass soon after start: a runner restarted more often than the interval must
  // still prune.
  schedule(Math.min(deps.intervalMs, 60_000));

  return {
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      await pass;
    },
  };
}
