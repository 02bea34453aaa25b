import { and, asc, desc, eq, gt, isNotNull, lt, notInArray, or, sql } from 'drizzle-orm';
import { FINAL_RUN_STATUSES, type Run, type RunStatus } from '@wap/contracts';
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

/**
 * Up to `limit` runs of the workflow older than `before` (a page's last run), newest first,
 * of one status when given: keyset paging, so a page costs the same however deep it is.
 */
export async function listRunsOfWorkflow(
  { db }: RunStore,
  workflowId: string,
  options: { limit: number; status?: RunStatus; before?: KeysetPosition },
): Promise<Run[]> {
  const { before, status } = options;
  const rows = await db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.workflowId, workflowId),
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
    .limit(options.limit);
  const steps = await stepsOfRuns(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toRun(row, steps.get(row.id) ?? [], { summary: true }));
}

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
