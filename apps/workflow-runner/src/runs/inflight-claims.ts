import type { Logger } from 'pino';
import { inflightClaimOf } from '@wap/contracts';
import { KvConflictError, type Clock, type KvBucket } from '@wap/platform';
import { startPeriodicPasses } from './periodic-passes';
import type { RunRepository } from './repository';

/** Runs read from the table per page. */
const PAGE_SIZE = 500;

/**
 * Keeps the fingerprint claims of runs still going from expiring. The in-flight bucket has a
 * TTL (its delete markers would otherwise stay for good), and a run may go on for days (an
 * approval, a delay, a run queued for the next running-hours window): every quarter of the TTL,
 * the claim of each unfinished run older than a quarter of the TTL is written again as it is,
 * so no claim of a run still going gets older than half the TTL.
 *
 * The rewrite is a compare-and-set at the revision read, and only of a claim that names the
 * run's own event: a claim released meanwhile (the run ended) or taken over by another request
 * is left as it is. A claim that expired all the same (no runner for a whole TTL) is not made
 * again; an identical request then runs beside the first one.
 */
export function startInflightClaimRefresh(deps: {
  runs: Pick<RunRepository, 'unfinishedHoldingInflightKeys'>;
  inflight: KvBucket;
  ttlMs: number;
  clock: Clock;
  logger: Logger;
}): { stop(): Promise<void> } {
  const { runs, inflight, logger } = deps;
  const everyMs = Math.floor(deps.ttlMs / 4);

  async function rewriteClaimOf(run: { eventId: string | null; inflightKey: string | null }) {
    if (!run.inflightKey || !run.eventId) return false;
    const entry = await inflight.get(run.inflightKey);
    if (!entry) return false;
    if (inflightClaimOf(entry.value)?.eventId !== run.eventId) return false;
    try {
      await inflight.update(run.inflightKey, entry.value, entry.revision);
      return true;
    } catch (error) {
      if (error instanceof KvConflictError) return false;
      throw error;
    }
  }

  async function refreshAll(): Promise<void> {
    const createdBefore = new Date(deps.clock.now().getTime() - everyMs);
    let afterId: string | null = null;
    let rewritten = 0;
    for (;;) {
      const page = await runs.unfinishedHoldingInflightKeys(createdBefore, afterId, PAGE_SIZE);
      for (const run of page) if (await rewriteClaimOf(run)) rewritten += 1;
      if (page.length < PAGE_SIZE) break;
      afterId = page[page.length - 1]?.id ?? null;
    }
    if (rewritten > 0) logger.info({ rewritten }, 'in-flight claims of runs still going rewritten');
  }

  return startPeriodicPasses({
    intervalMs: everyMs,
    pass: refreshAll,
    failureMessage: 'rewriting in-flight claims failed; retrying at the next pass',
    logger,
  });
}
