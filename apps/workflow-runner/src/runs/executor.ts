import { continueTrace } from '@wap/bus-protocol';
import { createGroupCommit } from '../db/group-commit';
import { createHeldRuns } from './held-runs';
import { executeRun, type RunExecutionContext } from './run-execution';
import type { CreationLease, LoadedRun, RunProgress, RunRow } from './run-rows';

/** How long a nudge waits for others to share its claim, in milliseconds. */
const CLAIM_COALESCE_MS = 5;
/** Runs whose progress is written in one transaction at most. */
const WRITE_BATCH = 256;
/** Runs held for their due time per run executed at once, at most. */
const HELD_PER_SLOT = 256;

export interface RunExecutorConfig {
  /** Runs one replica executes at once. */
  concurrency: number;
  /** How often the scheduler table is read for due runs, in milliseconds. */
  pollIntervalMs: number;
  /** A run's lease; a replica that dies lets it lapse and another resumes the run. */
  leaseMs: number;
}

/**
 * Room in the executor held for runs about to be created: they are created leased to it
 * (`lease`) and start without a claim once their creation has committed (or, created ahead,
 * at their due time).
 */
export interface RunReservation {
  /** The lease to create runs with; undefined when the executor has no room. */
  lease: CreationLease | undefined;
  /** The runs' creation committed: executes those leased to this executor, nudges for the rest. */
  start(created: readonly LoadedRun[]): void;
  /** The runs were not created: the room is free again. */
  cancel(): void;
}

export interface RunExecutor {
  /** Looks for due runs now instead of at the next poll (a run was just created). */
  nudge(): void;
  /** Holds room for up to `wanted` runs about to be created, to start at once. */
  reserve(wanted: number): RunReservation;
  /**
   * Holds room for up to `wanted` runs about to be created that fall due within `aheadMs`: each
   * starts at its due time without a claim.
   */
  reserveAhead(wanted: number, aheadMs: number): RunReservation;
  /**
   * A cancel of `runId` was asked for: if this executor runs it and the database confirms the
   * cancel, its running step is stopped and the run ends cancelled.
   */
  cancelRequested(runId: string): Promise<void>;
  /** Stops claiming; running runs stop after their current step and go back to the table. */
  stop(): Promise<void>;
}

/**
 * Executes runs from the scheduler table (`runs.wake_at` + a lease). The table, not a stream
 * message, is what keeps a run: a crash at any point leaves the run leased to nobody once the
 * lease lapses, and the next claim resumes it at its first unfinished step. A step that was
 * running when the process died runs again (at least once); its credit charge is not repeated.
 *
 * Executing one run is `executeRun` (run-execution.ts); what stays here is one closure on
 * purpose: the claim loop, the reservations and the held runs all read and change the count of
 * runs in hand (`active`, `reserved`, `stopping`), and split apart they would each need it passed
 * back and forth.
 */
/* eslint-disable-next-line max-lines-per-function --
  the claim loop, reservations and held runs share the count of runs in hand (see above) */
export function startRunExecutor(
  deps: Omit<RunExecutionContext, 'owner' | 'isStopping' | 'writeProgress' | 'onRunCreated'> & {
    config: RunExecutorConfig;
  },
): RunExecutor {
  const { runs, clock, logger, config } = deps;
  const owner = `runner-${deps.ids.uuid()}`;
  const active = new Set<Promise<void>>();
  /** Runs reserved and not yet tracked in `active`. */
  let reserved = 0;
  /** Reserved runs being started: stop() waits for them. */
  const starting = new Set<Promise<void>>();
  let stopping = false;
  let polling = false;
  let pollAgain = false;
  const held = createHeldRuns({
    runs,
    clock,
    logger,
    owner,
    leaseMs: config.leaseMs,
    limit: config.concurrency * HELD_PER_SLOT,
    onDue: () => startHeldDue(),
  });

  const execution: RunExecutionContext = {
    runs,
    ledger: deps.ledger,
    snapshots: deps.snapshots,
    steps: deps.steps,
    credentials: deps.credentials,
    workflows: deps.workflows,
    maxDescendantRuns: deps.maxDescendantRuns,
    onRunCreated: () => nudgeForNewRuns(),
    inflight: deps.inflight,
    clock,
    ids: deps.ids,
    logger,
    owner,
    isStopping: () => stopping,
    // Runs ending side by side share one commit.
    writeProgress: createGroupCommit(
      (entries: { run: RunRow; progress: RunProgress }[]) => runs.writeProgress(entries),
      { maxBatch: WRITE_BATCH },
    ),
  };

  /** The runs executing here, by id: a cancel aborts one. */
  const cancellations = new Map<string, AbortController>();

  function track(loaded: LoadedRun, balances: ReadonlyMap<string, number>): void {
    const runId = loaded.run.id;
    const cancellation = new AbortController();
    cancellations.set(runId, cancellation);
    const renewal = setInterval(
      () => {
        runs
          .renewLease(runId, owner, config.leaseMs)
          .then(({ cancelRequested }) => {
            if (cancelRequested) cancellation.abort();
          })
          .catch((error: unknown) => {
            logger.warn({ err: error, runId }, 'could not renew a run lease');
          });
      },
      Math.max(250, Math.floor(config.leaseMs / 3)),
    );
    // Claimed by a timer or created in a batch of other requests' runs: the run's own stored
    // trace, not the context at hand, is its parent.
    const executing = continueTrace(
      loaded.run.traceparent,
      'workflow run',
      {
        'wap.run.id': runId,
        'wap.workflow.id': loaded.run.workflowId,
        'wap.workspace.id': loaded.run.workspaceId,
      },
      () => executeRun(execution, loaded, balances, cancellation.signal),
    )
      .catch((error: unknown) => {
        // The lease lapses and another claim resumes the run; nothing is lost.
        logger.error({ err: error, runId }, 'run execution failed; it resumes after its lease');
      })
      .finally(() => {
        clearInterval(renewal);
        cancellations.delete(runId);
        active.delete(executing);
        if (stopping) return;
        // Room freed: held runs that came due first, then a claim if due runs may be waiting.
        startHeldDue();
        if (dueRunsMayWait) nudge();
      });
    active.add(executing);
  }

  async function poll(): Promise<void> {
    if (stopping) return;
    if (polling) {
      pollAgain = true;
      return;
    }
    polling = true;
    try {
      do {
        pollAgain = false;
        const capacity = config.concurrency - active.size - reserved;
        if (capacity <= 0) {
          dueRunsMayWait = true;
          return;
        }
        const claimed = await runs.claimDue(owner, config.leaseMs, capacity);
        dueRunsMayWait = claimed.length === capacity;
        // The queued runs' "credits depleted" check, one read for the batch.
        const balances = await deps.ledger.balancesOf([
          ...new Set(
            claimed.filter(({ run }) => run.status === 'queued').map(({ run }) => run.workspaceId),
          ),
        ]);
        for (const loaded of claimed) track(loaded, balances);
        if (claimed.length === capacity) pollAgain = true;
      } while (pollAgain && !stopping);
    } catch (error) {
      logger.warn({ err: error }, 'claiming due runs failed; retrying at the next poll');
    } finally {
      polling = false;
    }
  }

  // Nudges within a few milliseconds share one claim: runs created or ended side by side are
  // claimed in one batch rather than a round of queries each.
  let nudged: NodeJS.Timeout | null = null;
  /**
   * A claim found no room or filled it, or runs were created past the room reserved for them:
   * due runs may be waiting, and the end of a run nudges. Otherwise runs ending do not each
   * cost a claim; what falls due later (a delay, a lapsed lease) is found by the poll.
   */
  let dueRunsMayWait = true;
  function nudge(): void {
    nudged ??= setTimeout(() => {
      nudged = null;
      void poll();
    }, CLAIM_COALESCE_MS);
  }

  async function startLeased(leased: readonly LoadedRun[]): Promise<void> {
    if (leased.length === 0) return;
    try {
      const balances = await deps.ledger.balancesOf([
        ...new Set(leased.map(({ run }) => run.workspaceId)),
      ]);
      if (stopping) {
        await Promise.all(leased.map(({ run }) => runs.release(run.id, owner, run.wakeAt)));
        return;
      }
      for (const loaded of leased) track(loaded, balances);
    } catch (error) {
      logger.warn(
        { err: error, runIds: leased.map(({ run }) => run.id) },
        'starting created runs failed; they run once their lease lapses',
      );
    }
  }

  // Room freed by runs that ended in one commit is filled by one start (one balance read).
  let heldStartQueued = false;
  /** Starts the held runs that came due, as many as there is room for. */
  function startHeldDue(): void {
    if (heldStartQueued || !held.hasDue()) return;
    heldStartQueued = true;
    setImmediate(startHeldDueNow);
  }

  function startHeldDueNow(): void {
    heldStartQueued = false;
    const room = stopping ? 0 : config.concurrency - active.size - reserved;
    if (room <= 0) return;
    const due = held.takeDue(room);
    if (due.length === 0) return;
    reserved += due.length;
    const started = startLeased(due).finally(() => {
      reserved -= due.length;
      starting.delete(started);
    });
    starting.add(started);
  }

  function reserveAhead(wanted: number, aheadMs: number): RunReservation {
    let count = held.reserve(wanted);
    const free = () => {
      held.unreserve(count);
      count = 0;
    };
    return {
      lease: count > 0 ? { owner, count, aheadMs, leaseMs: config.leaseMs } : undefined,
      start(created) {
        const leased = created.filter(({ run }) => run.leaseOwner === owner);
        if (leased.length < created.length) nudgeForNewRuns();
        held.hold(leased);
        free();
      },
      cancel: free,
    };
  }

  function reserve(wanted: number): RunReservation {
    const room = stopping ? 0 : config.concurrency - active.size - reserved;
    const count = Math.max(0, Math.min(wanted, room));
    reserved += count;
    let kept = count;
    const free = () => {
      reserved -= kept;
      kept = 0;
    };
    return {
      lease: count > 0 ? { owner, count, aheadMs: 0, leaseMs: config.leaseMs } : undefined,
      start(created) {
        const leased = created.filter(({ run }) => run.leaseOwner === owner);
        if (leased.length < created.length) nudgeForNewRuns();
        const started = startLeased(leased).finally(() => {
          free();
          starting.delete(started);
        });
        starting.add(started);
      },
      cancel: free,
    };
  }

  function nudgeForNewRuns(): void {
    dueRunsMayWait = true;
    nudge();
  }

  const timer = setInterval(nudge, config.pollIntervalMs);
  nudge();

  async function cancelRequested(runId: string): Promise<void> {
    const cancellation = cancellations.get(runId);
    if (!cancellation) return;
    // The word came over the bus: the database, not the message, says whether to stop.
    if (await runs.isCancelRequested(runId)) cancellation.abort();
  }

  return {
    nudge: nudgeForNewRuns,
    reserve,
    reserveAhead,
    cancelRequested,
    async stop() {
      stopping = true;
      clearInterval(timer);
      if (nudged) clearTimeout(nudged);
      await held.stop();
      await Promise.allSettled([...starting]);
      while (active.size > 0 || polling) {
        await Promise.allSettled([...active]);
        if (polling) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
}
