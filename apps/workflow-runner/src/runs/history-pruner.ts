import type { Logger } from 'pino';
import type { Clock } from '@wap/platform';
import { startPeriodicPasses } from './periodic-passes';
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

  async function deleteEndedRuns(stopping: AbortSignal): Promise<void> {
    const endedBefore = new Date(clock.now().getTime() - deps.keepDays * DAY_MS);
    let deleted = 0;
    while (!stopping.aborted) {
      const batch = await runs.deleteEndedBefore(endedBefore, DELETE_BATCH);
      deleted += batch;
      if (batch < DELETE_BATCH) break;
    }
    if (deleted > 0) {
      logger.info({ deleted, endedBefore }, 'runs older than the run history deleted');
    }
  }

  return startPeriodicPasses({
    intervalMs: deps.intervalMs,
    pass: deleteEndedRuns,
    failureMessage: 'deleting old runs failed; retrying at the next pass',
    logger,
  });
}
