import { and, asc, desc, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { RunBatchItemStatus, type RunBatch, type RunFilter, type RunStatus } from '@wap/contracts';
import type { Clock, SqlDatabase } from '@wap/platform';
import { runBatches, runBatchItems, runs, testEvents } from '../db/schema';
import { isUniqueViolation } from '../db/unique-violation';
import { filterConditions } from '../runs/run-queries';

export type RunBatchRow = typeof runBatches.$inferSelect;
export type RunBatchItemRow = typeof runBatchItems.$inferSelect;
type Progress = RunBatch['progress'];

interface BatchStore {
  db: SqlDatabase;
  clock: Clock;
}

export interface NewRunBatch {
  id: string;
  workflowId: string;
  workspaceId: string;
  kind: 'replay' | 'cancel';
  source: 'runs' | 'test_events';
  filter: RunFilter;
  retryFrom: 'failed_step' | 'start' | null;
  requestedBy: string;
  requestKey: string | null;
}

const ItemCounts = z.object({
  rows: z.array(
    z.object({ batch_id: z.uuid(), status: RunBatchItemStatus, count: z.coerce.number().int() }),
  ),
});

const emptyProgress = (): Progress => ({
  pending: 0,
  started: 0,
  cancelled: 0,
  cancel_requested: 0,
  already_ended: 0,
  failed: 0,
  skipped: 0,
});

/** Up to `limit` + 1 ids the batch's filter chooses, newest first. */
async function chosenSources(
  store: BatchStore,
  batch: NewRunBatch,
  statuses: readonly RunStatus[],
  limit: number,
): Promise<string[]> {
  if (batch.source === 'test_events') {
    const { created_after: after, created_before: before } = batch.filter;
    const rows = await store.db
      .select({ id: testEvents.id })
      .from(testEvents)
      .where(
        and(
          eq(testEvents.workflowId, batch.workflowId),
          after ? gte(testEvents.receivedAt, new Date(after)) : undefined,
          before ? lt(testEvents.receivedAt, new Date(before)) : undefined,
        ),
      )
      .orderBy(desc(testEvents.receivedAt), desc(testEvents.id))
      .limit(limit + 1);
    return rows.map((row) => row.id);
  }
  const rows = await store.db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        filterConditions(batch.workflowId, batch.filter),
        inArray(runs.status, batch.filter.status ? [batch.filter.status] : [...statuses]),
      ),
    )
    .orderBy(desc(runs.createdAt), desc(runs.id))
    .limit(limit + 1);
  return rows.map((row) => row.id);
}

async function findByKey(
  store: BatchStore,
  workflowId: string,
  key: string,
): Promise<RunBatchRow | undefined> {
  const [row] = await store.db
    .select()
    .from(runBatches)
    .where(and(eq(runBatches.workflowId, workflowId), eq(runBatches.requestKey, key)));
  return row;
}

/**
 * Chooses the batch's runs (of `statuses`, at most `limit`) and stores the batch with them
 * in one transaction; `created` false when a batch with the request's key exists already
 * (that one is answered).
 */
export async function createBatch(
  store: BatchStore,
  batch: NewRunBatch,
  statuses: readonly RunStatus[],
  limit: number,
): Promise<{ row: RunBatchRow; created: boolean }> {
  if (batch.requestKey) {
    const earlier = await findByKey(store, batch.workflowId, batch.requestKey);
    if (earlier) return { row: earlier, created: false };
  }
  const chosen = await chosenSources(store, batch, statuses, limit);
  const sources = chosen.slice(0, limit);
  try {
    const row = await store.db.transaction(async (tx) => {
      const [inserted] = await tx
        .insert(runBatches)
        .values({
          ...batch,
          status: sources.length === 0 ? 'succeeded' : 'running',
          total: sources.length,
          moreMatched: chosen.length > limit,
          createdAt: store.clock.now(),
          finishedAt: sources.length === 0 ? store.clock.now() : null,
        })
        .returning();
      if (sources.length > 0) {
        await tx.insert(runBatchItems).values(
          sources.map((sourceId, position) => ({
            batchId: batch.id,
            position,
            sourceId,
            status: 'pending',
          })),
        );
      }
      return inserted;
    });
    if (!row) throw new Error('the batch was not stored');
    return { row, created: true };
  } catch (error) {
    // The same key sent twice at once: the first batch stored is the answer.
    const earlier =
      batch.requestKey && isUniqueViolation(error)
        ? await findByKey(store, batch.workflowId, batch.requestKey)
        : undefined;
    if (earlier) return { row: earlier, created: false };
    throw error;
  }
}

export async function findBatch(
  store: BatchStore,
  batchId: string,
): Promise<RunBatchRow | undefined> {
  const [row] = await store.db.select().from(runBatches).where(eq(runBatches.id, batchId));
  return row;
}

export async function batchesOfWorkflow(
  store: BatchStore,
  workflowId: string,
  limit: number,
): Promise<RunBatchRow[]> {
  return store.db
    .select()
    .from(runBatches)
    .where(eq(runBatches.workflowId, workflowId))
    .orderBy(desc(runBatches.createdAt))
    .limit(limit);
}

/** How many items of each batch are in each state. */
export async function progressOfBatches(
  store: BatchStore,
  batchIds: readonly string[],
): Promise<Map<string, Progress>> {
  const progress = new Map(batchIds.map((id) => [id, emptyProgress()]));
  if (batchIds.length === 0) return progress;
  const { rows } = ItemCounts.parse(
    await store.db.execute(sql`
        select batch_id, status, count(*)::int as count from ${runBatchItems}
        where ${inArray(runBatchItems.batchId, [...batchIds])}
        group by batch_id, status`),
  );
  for (const row of rows) {
    const counts = progress.get(row.batch_id);
    if (counts) counts[row.status] = row.count;
  }
  return progress;
}

export async function itemsOfBatch(store: BatchStore, batchId: string): Promise<RunBatchItemRow[]> {
  return store.db
    .select()
    .from(runBatchItems)
    .where(eq(runBatchItems.batchId, batchId))
    .orderBy(asc(runBatchItems.position));
}

/**
 * Leases the oldest running batch no replica holds and none worked on within the last
 * pass (a release sets `lease_until` to the next pass): one replica at a time per batch.
 */
export async function leaseNextBatch(
  store: BatchStore,
  owner: string,
  leaseMs: number,
): Promise<RunBatchRow | undefined> {
  const now = store.clock.now();
  const result = await store.db
    .update(runBatches)
    .set({ leaseOwner: owner, leaseUntil: new Date(now.getTime() + leaseMs) })
    .where(
      eq(
        runBatches.id,
        sql`(select id from ${runBatches} where ${runBatches.status} = 'running'
            and (${runBatches.leaseUntil} is null or ${runBatches.leaseUntil} < ${now.toISOString()}::timestamptz)
            order by ${runBatches.createdAt} limit 1 for update skip locked)`,
      ),
    )
    .returning();
  return result[0];
}

/** Gives the batch back, untouched until `notBefore` (the next pass). */
export async function releaseBatch(
  store: BatchStore,
  batchId: string,
  owner: string,
  notBefore: Date,
): Promise<void> {
  await store.db
    .update(runBatches)
    .set({ leaseOwner: null, leaseUntil: notBefore })
    .where(and(eq(runBatches.id, batchId), eq(runBatches.leaseOwner, owner)));
}

export async function pendingBatchItems(
  store: BatchStore,
  batchId: string,
  limit: number,
): Promise<RunBatchItemRow[]> {
  return store.db
    .select()
    .from(runBatchItems)
    .where(and(eq(runBatchItems.batchId, batchId), eq(runBatchItems.status, 'pending')))
    .orderBy(asc(runBatchItems.position))
    .limit(limit);
}

export async function isBatchRunning(store: BatchStore, batchId: string): Promise<boolean> {
  const [row] = await store.db
    .select({ status: runBatches.status })
    .from(runBatches)
    .where(eq(runBatches.id, batchId));
  return row?.status === 'running';
}

export async function settleBatchItem(
  store: BatchStore,
  item: Pick<RunBatchItemRow, 'batchId' | 'position'>,
  outcome: { status: RunBatchItemStatus; runId?: string; error?: string },
): Promise<void> {
  await store.db
    .update(runBatchItems)
    .set({ status: outcome.status, runId: outcome.runId ?? null, error: outcome.error ?? null })
    .where(
      and(
        eq(runBatchItems.batchId, item.batchId),
        eq(runBatchItems.position, item.position),
        eq(runBatchItems.status, 'pending'),
      ),
    );
}

/**
 * Ends a running batch: what it has not reached is skipped. False when it had ended
 * already (the answer is then the batch as it ended).
 */
export async function finishBatch(
  store: BatchStore,
  batchId: string,
  status: 'succeeded' | 'failed' | 'cancelled',
  error: string | null = null,
): Promise<boolean> {
  return store.db.transaction(async (tx) => {
    const [ended] = await tx
      .update(runBatches)
      .set({ status, error, finishedAt: store.clock.now(), leaseOwner: null, leaseUntil: null })
      .where(and(eq(runBatches.id, batchId), eq(runBatches.status, 'running')))
      .returning({ id: runBatches.id });
    if (!ended) return false;
    await tx
      .update(runBatchItems)
      .set({ status: 'skipped' })
      .where(and(eq(runBatchItems.batchId, batchId), eq(runBatchItems.status, 'pending')));
    return true;
  });
}

/** Replays and bulk cancels, and the runs (or test events) each chose (decision 159). */
export function createRunBatchRepository(store: BatchStore) {
  const bound =
    <Args extends unknown[], Result>(operation: (store: BatchStore, ...args: Args) => Result) =>
    (...args: Args): Result =>
      operation(store, ...args);
  return {
    create: bound(createBatch),
    find: bound(findBatch),
    listOfWorkflow: bound(batchesOfWorkflow),
    progressOf: bound(progressOfBatches),
    itemsOf: bound(itemsOfBatch),
    leaseNext: bound(leaseNextBatch),
    release: bound(releaseBatch),
    pendingItems: bound(pendingBatchItems),
    isRunning: bound(isBatchRunning),
    settleItem: bound(settleBatchItem),
    finish: bound(finishBatch),
  };
}

export type RunBatchRepository = ReturnType<typeof createRunBatchRepository>;
