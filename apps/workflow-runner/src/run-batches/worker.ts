import type { Logger } from 'pino';
import { creditShortfallMessage, isFinalRunStatus } from '@wap/contracts';
import type { Bus, Clock, IdSource, KvBucket } from '@wap/platform';
import type { CreditLedger } from '../credits/ledger';
import { uuidOfName } from '../db/name-uuid';
import { isUniqueViolation } from '../db/unique-violation';
import { startPeriodicPasses } from '../runs/periodic-passes';
import type { RunRepository } from '../runs/repository';
import { stopRun } from '../runs/run-control-handlers';
import { RETRY_REFUSALS, retryCostOf, retryStartOf } from '../runs/run-retry';
import type { TestEventRepository } from '../test-events/repository';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunBatchItemRow, RunBatchRepository, RunBatchRow } from './repository';

export interface RunBatchPace {
  /** How often batches are worked on, in ms. */
  intervalMs: number;
  /** Runs a replay starts per pass: the pace that keeps a replay from flooding what runs call. */
  replaysPerPass: number;
  /** Runs a bulk cancel stops per pass. */
  cancelsPerPass: number;
}

interface RunBatchWorkerDeps {
  batches: RunBatchRepository;
  runs: RunRepository;
  testEvents: Pick<TestEventRepository, 'find'>;
  workflows: Pick<WorkflowRepository, 'find'>;
  ledger: Pick<CreditLedger, 'balanceOf'>;
  inflight: KvBucket;
  bus: Bus;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  pace: RunBatchPace;
  onRunCreated: () => void;
}

/** Why an item stops its whole batch (the workspace cannot pay, the workflow is gone). */
class BatchStopped extends Error {}

type Outcome = Parameters<RunBatchRepository['settleItem']>[1];

async function replayRun(
  deps: RunBatchWorkerDeps,
  batch: RunBatchRow,
  item: RunBatchItemRow,
): Promise<Outcome> {
  const original = await deps.runs.get(item.sourceId);
  if (!original) return { status: 'failed', error: 'Run not found' };
  if (!isFinalRunStatus(original.run.status)) {
    return { status: 'failed', error: RETRY_REFUSALS.notEnded };
  }
  const startAt = retryStartOf(original, batch.retryFrom === 'start' ? 'start' : 'failed_step');
  if (startAt === undefined) {
    return {
      status: 'failed',
      error: RETRY_REFUSALS.nothingFailed,
    };
  }
  const shortfall = creditShortfallMessage(
    await deps.ledger.balanceOf(batch.workspaceId),
    retryCostOf(original, startAt),
  );
  if (shortfall) throw new BatchStopped(shortfall);
  const runId = uuidOfName(`run-batch:${batch.id}:${item.sourceId}`);
  try {
    await deps.runs.createRetry(original, { runId, startAt, traceparent: null });
  } catch (error) {
    // Created by a pass a crash cut off before it settled the item.
    if (!isUniqueViolation(error)) throw error;
  }
  return { status: 'started', runId };
}

async function replayTestEvent(
  deps: RunBatchWorkerDeps,
  batch: RunBatchRow,
  item: RunBatchItemRow,
): Promise<Outcome> {
  const workflow = await deps.workflows.find(batch.workflowId);
  if (!workflow) throw new BatchStopped('Workflow not found');
  const event = await deps.testEvents.find(workflow.id, item.sourceId);
  if (!event) return { status: 'failed', error: 'Test event not found' };
  const shortfall = creditShortfallMessage(
    await deps.ledger.balanceOf(batch.workspaceId),
    workflow.creditCost,
  );
  if (shortfall) throw new BatchStopped(shortfall);
  const runId = uuidOfName(`run-batch:${batch.id}:${item.sourceId}`);
  await deps.runs.create({
    runId,
    workflow,
    trigger: { type: 'manual', testEventId: event.id },
    input: event.body ?? {},
    inflightKey: null,
    notBefore: null,
    traceparent: null,
  });
  return { status: 'started', runId };
}

/** A run gone since the batch chose it was pruned, which only ended runs are: already ended. */
async function cancelRun(deps: RunBatchWorkerDeps, item: RunBatchItemRow): Promise<Outcome> {
  return { status: await stopRun(deps, item.sourceId) };
}

function outcomeOf(deps: RunBatchWorkerDeps, batch: RunBatchRow, item: RunBatchItemRow) {
  if (batch.kind === 'cancel') return cancelRun(deps, item);
  return batch.source === 'test_events'
    ? replayTestEvent(deps, batch, item)
    : replayRun(deps, batch, item);
}

/** The item's outcome, settled; a reason to stop the whole batch is settled and returned. */
async function settled(deps: RunBatchWorkerDeps, batch: RunBatchRow, item: RunBatchItemRow) {
  try {
    const outcome = await outcomeOf(deps, batch, item);
    await deps.batches.settleItem(item, outcome);
    return outcome;
  } catch (error) {
    if (!(error instanceof BatchStopped)) throw error;
    await deps.batches.settleItem(item, { status: 'failed', error: error.message });
    return error;
  }
}

/**
 * Items of a pass worked on at once: each is a few statements one after another, so a pass of
 * 500 cancels one at a time waited seven seconds on round trips (bench:runs). Half the default
 * pool of ten connections, so runs being executed still find one.
 */
const ITEMS_AT_ONCE = 5;

/**
 * Works through running batches a pace at a time, on whichever replica leases each. A replay's
 * run has an id made of the batch and its source, so an item cut off by a crash after its run
 * was created is created once when the next lease takes it again (decision 159).
 */
export function startRunBatchWorker(deps: RunBatchWorkerDeps) {
  const { batches, logger, pace } = deps;
  const owner = `batches-${deps.ids.uuid()}`;
  const leaseMs = Math.max(30_000, pace.intervalMs * 10);

  /** One pass's share of a leased batch; the batch ends once nothing is pending. */
  async function work(batch: RunBatchRow, signal: AbortSignal): Promise<void> {
    const perPass = batch.kind === 'cancel' ? pace.cancelsPerPass : pace.replaysPerPass;
    const items = await batches.pendingItems(batch.id, perPass);
    let started = 0;
    for (let next = 0; next < items.length; next += ITEMS_AT_ONCE) {
      // A batch cancelled meanwhile takes no further item.
      if (signal.aborted || !(await batches.isRunning(batch.id))) break;
      const group = items.slice(next, next + ITEMS_AT_ONCE);
      const outcomes = await Promise.all(group.map((item) => settled(deps, batch, item)));
      started += outcomes.filter(
        (o) => !(o instanceof BatchStopped) && o.status === 'started',
      ).length;
      const stopped = outcomes.find((outcome) => outcome instanceof BatchStopped);
      if (stopped) {
        await batches.finish(batch.id, 'failed', stopped.message);
        logger.warn({ batchId: batch.id, reason: stopped.message }, 'run batch stopped');
        break;
      }
    }
    if (started > 0) deps.onRunCreated();
    if (
      (await batches.pendingItems(batch.id, 1)).length === 0 &&
      (await batches.finish(batch.id, 'succeeded'))
    ) {
      logger.info({ batchId: batch.id, kind: batch.kind, total: batch.total }, 'run batch done');
    }
  }

  async function pass(signal: AbortSignal): Promise<void> {
    for (;;) {
      if (signal.aborted) return;
      const batch = await batches.leaseNext(owner, leaseMs);
      if (!batch) return;
      try {
        await work(batch, signal);
      } finally {
        // Half an interval: the next periodic pass finds it free, this one does not take it again.
        const nextPass = new Date(deps.clock.now().getTime() + pace.intervalMs / 2);
        await batches.release(batch.id, owner, nextPass);
      }
    }
  }

  let passing: Promise<void> = Promise.resolve();
  const stopping = new AbortController();
  const passes = startPeriodicPasses({
    intervalMs: pace.intervalMs,
    pass: (signal) => (passing = pass(signal)),
    failureMessage: 'run batch pass failed',
    logger,
  });
  return {
    /** A new batch: its first pass now rather than at the next interval. */
    nudge(): void {
      passing = passing
        .then(() => pass(stopping.signal))
        .catch((error: unknown) => logger.warn({ err: error }, 'run batch pass failed'));
    },
    async stop(): Promise<void> {
      stopping.abort();
      await passes.stop();
      await passing;
    },
  };
}
