import { sql } from 'drizzle-orm';
import { FINAL_RUN_STATUSES } from '@wap/contracts';
import { anyOfUuids, type SqlExecutor } from '../db/sql-executor';

const finalStatuses = sql.join(
  FINAL_RUN_STATUSES.map((status) => sql`${status}`),
  sql`, `,
);

/**
 * What the end of runs means to the runs around them, in the transaction that ends them: a
 * parent waiting for one of them (a for_each, a call that waits) is due at once, and the runs it
 * was waiting for itself (its iterations, the run it called) are cancelled. A crash cannot come
 * between a run's end and either.
 */
export async function settleRelatives(
  tx: SqlExecutor,
  endedRunIds: readonly string[],
  now: string,
): Promise<void> {
  if (endedRunIds.length === 0) return;
  // Set even while a runner holds the parent: its release sees the move and keeps it due.
  await tx.execute(sql`
    update workflow_runner.runs as parent
    set wake_at = ${now}::timestamptz
    where parent.id = any(array(
        select child.parent_run_id from workflow_runner.runs as child
        where child.id = ${anyOfUuids(endedRunIds)} and child.parent_run_id is not null))
      and parent.status not in (${finalStatuses})`);
  await tx.execute(sql`
    update workflow_runner.runs
    set cancel_requested_at = coalesce(cancel_requested_at, ${now}::timestamptz),
      wake_at = ${now}::timestamptz
    where parent_run_id = ${anyOfUuids(endedRunIds)} and status not in (${finalStatuses})`);
}
