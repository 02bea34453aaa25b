import { and, eq, sql } from 'drizzle-orm';
import { runs } from '../db/schema';
import { anyOfUuids } from '../db/sql-executor';
import { settleRelatives } from './run-relatives';
import { iso, type RunStore, type RunRow, type RunProgress } from './run-rows';

/**
 * Writes what runs did since their last write in one transaction (one commit for all of
 * them): each run's start, the steps that ended in between, and its end if it ended. A crash
 * before the commit leaves the runs as they were, and a resumed run executes those steps
 * again (they are free and local). At most four statements, whatever the number of runs.
 */
/** The rows of the steps a run ended since its last write, as the update reads them. */
function endedStepRows({ run, progress }: { run: RunRow; progress: RunProgress }) {
  return progress.endedSteps.map((step) => ({
    run_id: run.id,
    step_index: step.stepIndex,
    status: step.status,
    input: step.input ?? null,
    output: step.output ?? null,
    error: step.error,
    started_at: iso(step.startedAt),
    finished_at: iso(step.finishedAt),
    duration_ms:
      step.startedAt && step.finishedAt
        ? Math.max(0, step.finishedAt.getTime() - step.startedAt.getTime())
        : null,
  }));
}

export async function writeRunProgress(
  { db, clock }: RunStore,
  entries: readonly { run: RunRow; progress: RunProgress }[],
): Promise<void> {
  const endedSteps = entries.flatMap(endedStepRows);
  const skipping = entries
    .filter(({ progress }) => progress.finish?.skipRemaining)
    .map(({ run }) => run.id);
  const finished = entries.flatMap(({ run, progress }) =>
    progress.finish
      ? [
          {
            id: run.id,
            status: progress.finish.status,
            error: progress.finish.error,
            started_at: iso(progress.started),
          },
        ]
      : [],
  );
  const started = entries.flatMap(({ run, progress }) =>
    !progress.finish && progress.started
      ? [{ id: run.id, started_at: progress.started.toISOString() }]
      : [],
  );
  if (endedSteps.length + finished.length + started.length === 0) return;
  const now = clock.now().toISOString();
  await db.transaction(async (tx) => {
    if (endedSteps.length > 0) {
      await tx.execute(sql`
        update workflow_runner.run_steps as s
        set status = x.status, input = x.input, output = x.output, error = x.error,
          started_at = x.started_at, finished_at = x.finished_at, duration_ms = x.duration_ms
        from jsonb_to_recordset(${JSON.stringify(endedSteps)}::jsonb) as x(run_id uuid,
          step_index integer, status text, input jsonb, output jsonb, error text,
          started_at timestamptz, finished_at timestamptz, duration_ms integer)
        where s.run_id = ${anyOfUuids(endedSteps.map((step) => step.run_id))}
          and s.run_id = x.run_id and s.step_index = x.step_index`);
    }
    if (skipping.length > 0) {
      await tx.execute(sql`
        update workflow_runner.run_steps set status = 'skipped'
        where run_id = ${anyOfUuids(skipping)} and status = 'pending'`);
    }
    if (finished.length > 0) {
      // An ended run is the scheduler's no more. Its in-flight key is released after this
      // commit (executor), or taken over by webhook-ingest if a crash comes in between.
      await tx.execute(sql`
        update workflow_runner.runs as r
        set status = x.status, error = x.error,
          started_at = coalesce(r.started_at, x.started_at), finished_at = ${now}::timestamptz,
          wake_at = null, lease_owner = null, lease_until = null
        from jsonb_to_recordset(${JSON.stringify(finished)}::jsonb) as x(id uuid,
          status text, error text, started_at timestamptz)
        where r.id = ${anyOfUuids(finished.map((run) => run.id))} and r.id = x.id`);
      await settleRelatives(
        tx,
        finished.map((run) => run.id),
        now,
      );
    }
    if (started.length > 0) {
      await tx.execute(sql`
        update workflow_runner.runs as r
        set status = 'running', started_at = x.started_at
        from jsonb_to_recordset(${JSON.stringify(started)}::jsonb) as x(id uuid,
          started_at timestamptz)
        where r.id = ${anyOfUuids(started.map((run) => run.id))} and r.id = x.id
          and r.status = 'queued'`);
    }
  });
}

export async function markRunRunning({ db, clock }: RunStore, runId: string): Promise<void> {
  await db
    .update(runs)
    .set({ status: 'running', startedAt: clock.now() })
    .where(and(eq(runs.id, runId), eq(runs.status, 'queued')));
}
