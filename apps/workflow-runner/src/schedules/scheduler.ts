import type { Logger } from 'pino';
import type { Clock } from '@wap/platform';
import type { RunExecutor } from '../runs/executor';
import { startPeriodicPasses } from '../runs/periodic-passes';
import type { ScheduleRepository } from './repository';
import type { DecidedFire } from './schedule-rows';

/** Schedules decided per transaction; a pass takes batches until one comes back short. */
const SCHEDULES_PER_BATCH = 500;

export interface Scheduler {
  /**
   * Decides every fire owed by now and by the lookahead; what the loop runs each interval, and
   * tests call directly.
   */
  runOnce(): Promise<DecidedFire[]>;
  stop(): Promise<void>;
}

/**
 * Every `intervalMs`, decides the fires owed by the injected clock's now (decision 71) and those
 * due within `lookaheadMs` after it (decision 139), one pass at a time; a failed pass is logged
 * and the next one tries again. Runs of fires decided ahead are created leased to `executor`,
 * which starts them at their due time: at that time only the start remains.
 */
export function startScheduler(deps: {
  schedules: ScheduleRepository;
  clock: Clock;
  logger: Logger;
  intervalMs: number;
  lookaheadMs: number;
  executor: Pick<RunExecutor, 'reserveAhead'>;
  /** false: no loop; only `runOnce` decides (tests with an injected clock). */
  loop?: boolean;
}): Scheduler {
  let stopped = false;

  async function decideBatch(): Promise<{ full: boolean; decided: DecidedFire[] }> {
    const reservation = deps.executor.reserveAhead(SCHEDULES_PER_BATCH, deps.lookaheadMs);
    try {
      const batch = await deps.schedules.fireDue(deps.clock.now(), SCHEDULES_PER_BATCH, {
        aheadMs: deps.lookaheadMs,
        lease: reservation.lease,
      });
      // Started while the next batch is decided.
      reservation.start(batch.created);
      return { full: batch.taken === SCHEDULES_PER_BATCH, decided: batch.decided };
    } catch (error) {
      reservation.cancel();
      throw error;
    }
  }

  async function runOnce(): Promise<DecidedFire[]> {
    const decided: DecidedFire[] = [];
    for (;;) {
      const batch = await decideBatch();
      decided.push(...batch.decided);
      if (!batch.full || stopped) break;
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
