import type { Logger } from 'pino';
import type { Clock } from '@wap/platform';
import { startPeriodicPasses } from '../runs/periodic-passes';
import type { DecidedFire, ScheduleRepository } from './repository';

/** Schedules decided per transaction; a pass takes batches until one comes back short. */
const SCHEDULES_PER_BATCH = 500;

export interface Scheduler {
  /** Decides every fire owed now; what the loop runs each interval, and tests call directly. */
  runOnce(): Promise<DecidedFire[]>;
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, decides the fires owed by the injected clock's now (decision 71), one pass
 * at a time; a failed pass is logged and the next one tries again.
 */
export function startScheduler(deps: {
  schedules: ScheduleRepository;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  /** Called when a pass created runs, so the executor claims them without waiting for its poll. */
  onRunsCreated: () => void;
  /** false: no loop; only `runOnce` decides (tests with an injected clock). */
  loop?: boolean;
}): Scheduler {
  let stopped = false;

  async function runOnce(): Promise<DecidedFire[]> {
    const decided: DecidedFire[] = [];
    for (;;) {
      const batch = await deps.schedules.fireDue(deps.clock.now(), SCHEDULES_PER_BATCH);
      decided.push(...batch);
      if (batch.length < SCHEDULES_PER_BATCH || stopped) break;
      // Runs of a full batch can start while the next one is decided.
      if (batch.some((fire) => fire.runId !== null)) deps.onRunsCreated();
    }
    for (const fire of decided) {
      deps.logger.info(
        {
          workflowId: fire.workflowId,
          fireAt: fire.fireAt,
          outcome: fire.outcome,
          runId: fire.runId,
          missed: fire.missed,
        },
        'schedule fired',
      );
    }
    if (decided.some((fire) => fire.runId !== null)) deps.onRunsCreated();
    return decided;
  }

  const passes =
    deps.loop === false
      ? null
      : startPeriodicPasses({
          intervalMs: deps.intervalMs,
          logger: deps.logger,
          failureMessage: 'scheduler pass failed; the next one tries again',
          pass: async () => {
            await runOnce();
          },
        });

  return {
    runOnce,
    async stop() {
      stopped = true;
      await passes?.stop();
    },
  };
}
