import type { Logger } from 'pino';

export interface ShutdownStep {
  name: string;
  run: () => Promise<void>;
}

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * On SIGTERM or SIGINT runs the steps in order (stop accepting, drain the bus, close the
 * store, flush traces) and exits 128 + the signal number; a step that fails is logged and the
 * rest still run. A second signal, or `graceMs` passing, exits at once.
 */
export function onShutdown(options: {
  logger: Logger;
  steps: ShutdownStep[];
  graceMs?: number;
}): void {
  let shuttingDown = false;
  for (const signal of Object.keys(SIGNAL_NUMBERS) as (keyof typeof SIGNAL_NUMBERS)[]) {
    process.on(signal, () => {
      const exitCode = 128 + SIGNAL_NUMBERS[signal];
      if (shuttingDown) process.exit(exitCode);
      shuttingDown = true;
      options.logger.info({ signal }, 'draining before exit');
      const timer = setTimeout(() => {
        options.logger.error({ graceMs: options.graceMs }, 'drain took too long, exiting');
        process.exit(exitCode);
      }, options.graceMs ?? 25_000);
      timer.unref();
      void runSteps(options.steps, options.logger).then(() => {
        options.logger.info('drained');
        process.exit(exitCode);
      });
    });
  }
}

async function runSteps(steps: ShutdownStep[], logger: Logger): Promise<void> {
  for (const step of steps) {
    try {
      await step.run();
    } catch (error) {
      logger.error({ err: error, step: step.name }, 'shutdown step failed');
    }
  }
}
