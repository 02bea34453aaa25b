import type { Logger } from 'pino';
import type { TestEventRepository } from './repository';

export interface TestEventPruner {
  /** These workflows received events: their oldest beyond the cap go at the next pass. */
  mark(workflowIds: Iterable<string>): void;
  /** Stops the passes after one last pass over what is marked. */
  stop(): Promise<void>;
}

/**
 * Prunes test events on an interval rather than after each written batch: under load a prune
 * per batch found the cap-th newest event and scanned past the deleted ones dozens of times a
 * second, for a list that only ever shows the newest `cap` (the list applies the cap itself, so
 * the events written between two passes never show). A failed pass (two replicas pruning one
 * workflow, the database away) keeps its workflows marked for the next one; nothing is lost.
 */
export function startTestEventPruner(deps: {
  testEvents: Pick<TestEventRepository, 'prune'>;
  intervalMs: number;
  logger: Logger;
}): TestEventPruner {
  let marked = new Set<string>();
  let pass: Promise<void> | null = null;

  function pruneMarked(): Promise<void> {
    if (pass || marked.size === 0) return pass ?? Promise.resolve();
    const workflowIds = marked;
    marked = new Set();
    pass = deps.testEvents
      .prune([...workflowIds])
      .catch((error: unknown) => {
        for (const workflowId of workflowIds) marked.add(workflowId);
        deps.logger.warn(
          { err: error },
          'pruning old test events failed; retried at the next pass',
        );
      })
      .finally(() => {
        pass = null;
      });
    return pass;
  }

  const timer = setInterval(() => void pruneMarked(), deps.intervalMs);
  timer.unref();

  return {
    mark(workflowIds) {
      for (const workflowId of workflowIds) marked.add(workflowId);
    },
    async stop() {
      clearInterval(timer);
      await pass;
      await pruneMarked();
    },
  };
}
