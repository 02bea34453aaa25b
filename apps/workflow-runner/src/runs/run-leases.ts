import { and, asc, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { runs } from '../db/schema';
import { anyOfUuids } from '../db/sql-executor';
import { stepsOfRuns, type RunStore, type LoadedRun } from './run-rows';

/**
 * Leases up to `limit` due runs to `owner` and returns them with their steps (two reads for
 * the whole batch, not two per run): due means `wake_at` has passed and no live lease holds
 * the run. SKIP LOCKED lets replicas claim side by side without waiting on each other.
 */
export async function claimDueRuns(
  { db, clock }: RunStore,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<LoadedRun[]> {
  const now = clock.now();
  // One statement (no explicit transaction): each round trip costs the runner CPU.
  const due = db
    .select({ id: runs.id })
    .from(runs)
    .where(and(lte(runs.wakeAt, now), or(isNull(runs.leaseUntil), lt(runs.leaseUntil, now))))
    .orderBy(asc(runs.wakeAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  const claimed = await db
    .update(runs)
    .set({ leaseOwner: owner, leaseUntil: new Date(now.getTime() + leaseMs) })
    // `= any(array(...))`: the claimed ids are looked up by primary key, not joined by a
    // plan that scans the table when its statistics are stale.
    .where(sql`${runs.id} = any(array(${due}))`)
    .returning();
  if (claimed.length === 0) return [];
  const steps = await stepsOfRuns(
    db,
    claimed.map((run) => run.id),
  );
  return claimed.map((run) => ({ run, steps: steps.get(run.id) ?? [] }));
}

/**
 * Extends the lease while the run executes: `held` false when another owner has taken it,
 * `cancelRequested` when a cancel was asked for (the executor stops the run even if the bus
 * lost the word of it).
 */
export async function renewRunLease(
  { db, clock }: RunStore,
  runId: string,
  owner: string,
  leaseMs: number,
): Promise<{ held: boolean; cancelRequested: boolean }> {
  const [renewed] = await db
    .update(runs)
    .set({ leaseUntil: new Date(clock.now().getTime() + leaseMs) })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner)))
    .returning({ cancelRequestedAt: runs.cancelRequestedAt });
  return { held: renewed !== undefined, cancelRequested: renewed?.cancelRequestedAt != null };
}

/**
 * Extends the leases of runs held for their due time in one statement, never shortening one
 * that reaches further; returns the ids still held by `owner`.
 */
export async function extendRunLeases(
  { db, clock }: RunStore,
  runIds: readonly string[],
  owner: string,
  leaseMs: number,
): Promise<string[]> {
  if (runIds.length === 0) return [];
  const until = new Date(clock.now().getTime() + leaseMs).toISOString();
  const extended = await db
    .update(runs)
    .set({ leaseUntil: sql`greatest(${runs.leaseUntil}, ${until}::timestamptz)` })
    .where(and(sql`${runs.id} = ${anyOfUuids(runIds)}`, eq(runs.leaseOwner, owner)))
    .returning({ id: runs.id });
  return extended.map((row) => row.id);
}

/** Gives held runs back unchanged otherwise: any replica claims them at their due time. */
export async function releaseHeldRuns(
  { db }: RunStore,
  runIds: readonly string[],
  owner: string,
): Promise<void> {
  if (runIds.length === 0) return;
  await db
    .update(runs)
    .set({ leaseOwner: null, leaseUntil: null })
    .where(and(sql`${runs.id} = ${anyOfUuids(runIds)}`, eq(runs.leaseOwner, owner)));
}

/** Gives the run back to the scheduler, due again at `wakeAt` (null: not until something changes). */
export async function releaseRun(
  { db }: RunStore,
  runId: string,
  owner: string,
  wakeAt: Date | null,
): Promise<void> {
  await db
    .update(runs)
    .set({ leaseOwner: null, leaseUntil: null, wakeAt })
    .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner)));
}
