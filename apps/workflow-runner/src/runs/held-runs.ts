import type { Logger } from 'pino';
import type { Clock } from '@wap/platform';
import type { RunRepository } from './repository';
import type { LoadedRun } from './run-rows';

export interface HeldRuns {
  /** Takes room for up to `wanted` runs about to be created; returns how many it took. */
  reserve(wanted: number): number;
  /** Gives back room taken by `reserve` (`count` of it), whether or not the runs were held. */
  unreserve(count: number): void;
  /** Holds runs created leased to this executor until their due time. */
  hold(created: readonly LoadedRun[]): void;
  /** Whether a held run's due time has come. */
  hasDue(): boolean;
  /** Up to `max` held runs whose due time has come, earliest first; they are held no more. */
  takeDue(max: number): LoadedRun[];
  /** Gives every held run back to the table, for any replica to claim at its due time. */
  stop(): Promise<void>;
}

/**
 * Runs created ahead of their due time (a schedule's fire decided early, decision 139) and
 * leased to this executor: at its due time each is offered to `onDue`, with no claim to read it
 * back, and until it is taken its lease is kept alive in one statement for all of them. A
 * replica that dies lets the leases lapse and any other claims the runs.
 */
/* eslint-disable-next-line max-lines-per-function --
  the held runs' short methods share the one map of runs held here */
export function createHeldRuns(deps: {
  runs: Pick<RunRepository, 'extendLeases' | 'releaseHeld'>;
  clock: Clock;
  logger: Logger;
  owner: string;
  leaseMs: number;
  /** Runs held at once at most: what does not fit is created unleased and claimed when due. */
  limit: number;
  /** Held runs have come due: the executor takes as many as it has room for. */
  onDue: () => void;
}): HeldRuns {
  const { clock, logger, owner } = deps;
  const held = new Map<string, LoadedRun>();
  /** Held runs whose due time has come, in the order they came due. */
  let due: LoadedRun[] = [];
  let reserved = 0;
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;

  function arm(wakeAt: number, group: LoadedRun[]): void {
    const timer = setTimeout(
      () => {
        timers.delete(timer);
        // A timer may fire a millisecond before the clock reaches the due time.
        if (clock.now().getTime() < wakeAt) {
          arm(wakeAt, group);
          return;
        }
        due.push(...group.filter(({ run }) => held.has(run.id)));
        deps.onDue();
      },
      Math.max(0, wakeAt - clock.now().getTime()),
    );
    timers.add(timer);
  }

  const renewal = setInterval(
    () => {
      if (held.size === 0) return;
      const ids = [...held.keys()];
      deps.runs.extendLeases(ids, owner, deps.leaseMs).then(
        (kept) => {
          const keptIds = new Set(kept);
          const lost = ids.filter((id) => !keptIds.has(id) && held.delete(id));
          if (lost.length === 0) return;
          due = due.filter(({ run }) => held.has(run.id));
          logger.warn({ runIds: lost }, 'held runs were claimed by another replica');
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'could not extend the leases of held runs');
        },
      );
    },
    Math.max(250, Math.floor(deps.leaseMs / 3)),
  );

  return {
    reserve(wanted) {
      const count = stopped ? 0 : Math.max(0, Math.min(wanted, deps.limit - held.size - reserved));
      reserved += count;
      return count;
    },
    unreserve(count) {
      reserved -= count;
    },
    hold(created) {
      const groups = new Map<number, LoadedRun[]>();
      for (const loaded of created) {
        held.set(loaded.run.id, loaded);
        const wakeAt = (loaded.run.wakeAt ?? clock.now()).getTime();
        const group = groups.get(wakeAt);
        if (group) group.push(loaded);
        else groups.set(wakeAt, [loaded]);
      }
      for (const [wakeAt, group] of groups) arm(wakeAt, group);
    },
    hasDue: () => due.length > 0,
    takeDue(max) {
      const taken = due.splice(0, max);
      for (const { run } of taken) held.delete(run.id);
      return taken;
    },
    async stop() {
      stopped = true;
      clearInterval(renewal);
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const ids = [...held.keys()];
      held.clear();
      due = [];
      try {
        await deps.runs.releaseHeld(ids, owner);
      } catch (error) {
        logger.warn(
          { err: error, runIds: ids },
          'could not give held runs back; their leases lapse',
        );
      }
    },
  };
}
