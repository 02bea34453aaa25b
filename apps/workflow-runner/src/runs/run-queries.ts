import {
  and,
  asc,
  desc,
  eq,
  gt,
  gte,
  isNotNull,
  lt,
  ne,
  notInArray,
  or,
  sql,
  type SQL,
} from 'drizzle-orm';
import { z } from 'zod';
import {
  FINAL_RUN_STATUSES,
  RUN_COUNT_CAP,
  RunStatus,
  type Run,
  type RunCounts,
  type RunFilter,
} from '@wap/contracts';
import type { KeysetPosition } from '@wap/bus-protocol';
import { runs } from '../db/schema';
import { RowIds, stepsOfRuns, type RunStore, type RunRow, type RunStepRow } from './run-rows';
import { toRun } from './run-api';

export async function getRun(
  { db }: RunStore,
  runId: string,
): Promise<{ run: RunRow; steps: RunStepRow[] } | undefined> {
  const [run] = await db.select().from(runs).where(eq(runs.id, runId));
  if (!run) return undefined;
  return { run, steps: (await stepsOfRuns(db, [run.id])).get(run.id) ?? [] };
}

/** Retries of a run listed on its page, at the most. */
const RETRIES_LISTED = 50;

/** The runs that retry this one (by its `retry_of`), oldest first. */
export async function retriesOfRun(
  { db }: RunStore,
  runId: string,
): Promise<Pick<RunRow, 'id' | 'status' | 'attempt' | 'createdAt'>[]> {
  return db
    .select({ id: runs.id, status: runs.status, attempt: runs.attempt, createdAt: runs.createdAt })
    .from(runs)
    .where(eq(runs.retryOf, runId))
    .orderBy(asc(runs.createdAt), asc(runs.id))
    .limit(RETRIES_LISTED);
}

/** The run a webhook event started, if any. */
export async function findRunByEvent(
  { db }: RunStore,
  eventId: string,
): Promise<Pick<RunRow, 'id' | 'status'> | undefined> {
  const [row] = await db
    .select({ id: runs.id, status: runs.status })
    .from(runs)
    .where(eq(runs.eventId, eventId))
    .limit(1);
  return row;
}

/** The conditions of a filter other than its status. */
export function filterConditions(workflowId: string, filter: RunFilter): SQL | undefined {
  return and(
    eq(runs.workflowId, workflowId),
    // A loop's iterations are listed on the loop's run, unless asked for by their trigger.
    filter.trigger ? eq(runs.triggerType, filter.trigger) : ne(runs.triggerType, 'for_each'),
    filter.created_after ? gte(runs.createdAt, new Date(filter.created_after)) : undefined,
    filter.created_before ? lt(runs.createdAt, new Date(filter.created_before)) : undefined,
    filter.event_id ? eq(runs.eventId, filter.event_id) : undefined,
  );
}

/**
 * Up to `limit` runs of the workflow older than `before` (a page's last run), newest first,
 * matching the filter: keyset paging, so a page costs the same however deep it is. A trigger
 * without a status is read status by status (each through runs_workflow_trigger_status_idx,
 * a page at most) and merged, so that a rare trigger is not found by reading the others' runs.
 */
export async function listRunsOfWorkflow(
  { db }: RunStore,
  workflowId: string,
  options: { limit: number; filter: RunFilter; before?: KeysetPosition },
): Promise<Run[]> {
  const { before, filter, limit } = options;
  const pageOf = (status: RunStatus | undefined) =>
    db
      .select()
      .from(runs)
      .where(
        and(
          filterConditions(workflowId, filter),
          status ? eq(runs.status, status) : undefined,
          before
            ? or(
                lt(runs.createdAt, before.at),
                and(eq(runs.createdAt, before.at), lt(runs.id, before.id)),
              )
            : undefined,
        ),
      )
      .orderBy(desc(runs.createdAt), desc(runs.id))
      .limit(limit);
  const byStatus = filter.trigger && !filter.status && !filter.event_id;
  const rows = byStatus
    ? (await Promise.all(RunStatus.options.map(pageOf)))
        .flat()
        .sort(
          (left, right) =>
            right.createdAt.getTime() - left.createdAt.getTime() ||
            (right.id < left.id ? -1 : right.id > left.id ? 1 : 0),
        )
        .slice(0, limit)
    : await pageOf(filter.status);
  const steps = await stepsOfRuns(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toRun(row, steps.get(row.id) ?? [], { summary: true }));
}

/**
 * How many runs of the workflow match the filter (its status aside), by status, each counted
 * to RUN_COUNT_CAP at most: one statement of six bounded index range scans, whatever the
 * history's length.
 */
export async function countRunsOfWorkflow(
  { db }: RunStore,
  workflowId: string,
  filter: RunFilter,
): Promise<RunCounts> {
  const conditions = filterConditions(workflowId, filter);
  const counted = sql.join(
    RunStatus.options.map(
      (status) => sql`select ${status}::text as status, (select count(*) from (
        select 1 from ${runs} where ${conditions} and ${runs.status} = ${status}
        limit ${RUN_COUNT_CAP}) as matched)::int as count`,
    ),
    sql` union all `,
  );
  const { rows } = StatusCounts.parse(await db.execute(counted));
  const byStatus = Object.fromEntries(
    RunStatus.options.map((status) => [status, 0]),
  ) as RunCounts['by_status'];
  for (const row of rows) byStatus[row.status] = row.count;
  return {
    by_status: byStatus,
    capped: rows.some((row) => row.count >= RUN_COUNT_CAP),
  };
}

const StatusCounts = z.object({
  rows: z.array(z.object({ status: RunStatus, count: z.coerce.number().int() })),
});

/**
 * Runs not ended yet that hold an in-flight key and were created before `createdBefore`:
 * the page of `limit` after the run id `afterId`, in id order.
 */
export async function unfinishedRunsHoldingInflightKeys(
  { db }: RunStore,
  createdBefore: Date,
  afterId: string | null,
  limit: number,
): Promise<Pick<RunRow, 'id' | 'eventId' | 'inflightKey'>[]> {
  return db
    .select({ id: runs.id, eventId: runs.eventId, inflightKey: runs.inflightKey })
    .from(runs)
    .where(
      and(
        isNotNull(runs.inflightKey),
        notInArray(runs.status, [...FINAL_RUN_STATUSES]),
        lt(runs.createdAt, createdBefore),
        afterId ? gt(runs.id, afterId) : undefined,
      ),
    )
    .orderBy(asc(runs.id))
    .limit(limit);
}

/**
 * Deletes at most `limit` runs that ended before `endedBefore`, with their steps and
 * approvals, and returns how many runs went. They are found workflow by workflow through
 * runs_workflow_idx (a run ends after it was created), so that neither the whole history is
 * read nor an index is added to the writes every run makes. Rows another replica is deleting
 * are skipped, so two passes never wait on each other. The steps and approvals are matched
 * through an array sub-select, planned as an index scan without table statistics (see
 * `anyOfUuids`); an `in` sub-select was planned as a sequential scan of both tables.
 */
export async function deleteRunsEndedBefore(
  { db }: RunStore,
  endedBefore: Date,
  limit: number,
): Promise<number> {
  const cutoff = endedBefore.toISOString();
  const result = await db.execute(sql`
    with doomed as (
      select ended.id from workflow_runner.workflows as w
      cross join lateral (
        select r.id from workflow_runner.runs as r
        where r.workflow_id = w.id and r.created_at < ${cutoff}::timestamptz
          and r.finished_at < ${cutoff}::timestamptz
          and r.status in (${sql.join(
            FINAL_RUN_STATUSES.map((status) => sql`${status}`),
            sql`, `,
          )})
        limit ${limit}
        for update skip locked
      ) as ended
      limit ${limit}
    ), deleted_steps as (
      delete from workflow_runner.run_steps where run_id = any(array(select id from doomed))
    ), deleted_emails as (
      delete from workflow_runner.approval_emails where approval_id = any(array(
        select id from workflow_runner.approvals where run_id = any(array(select id from doomed))
      ))
    ), deleted_approvals as (
      delete from workflow_runner.approvals where run_id = any(array(select id from doomed))
    )
    delete from workflow_runner.runs where id = any(array(select id from doomed))
    returning id`);
  return RowIds.parse(result).rows.length;
}
