import { and, asc, eq, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import { FINAL_RUN_STATUSES } from '@wap/contracts';
import type { SqlExecutor } from '../db/sql-executor';
import { createRuns, insertNewRuns } from './run-creation';
import { runs, runSteps } from '../db/schema';
import {
  iso,
  RowIds,
  type LoadedRun,
  type NewRun,
  type RunRow,
  type RunStepRow,
  type RunStore,
} from './run-rows';
import type { TemplateScope } from './templates';

/** The reads and writes of a parent run's iterations and called runs (child-runs.ts). */

const finalStatuses = sql.join(
  FINAL_RUN_STATUSES.map((status) => sql`${status}`),
  sql`, `,
);

const LoopCounts = z.object({
  rows: z.array(
    z.object({
      created: z.coerce.number(),
      ended: z.coerce.number(),
      failed: z.coerce.number(),
      in_flight: z.coerce.number(),
      first_failed: z.number().nullable(),
    }),
  ),
});

export async function loopCounts({ db }: RunStore, run: RunRow, step: RunStepRow) {
  const result = await db.execute(sql`
    select count(*) as created,
      count(*) filter (where status in (${finalStatuses})) as ended,
      count(*) filter (where status in ('failed', 'cancelled')) as failed,
      count(*) filter (where status not in (${finalStatuses})
        and (wake_at is not null or lease_owner is not null)) as in_flight,
      min(iteration) filter (where status in ('failed', 'cancelled')) as first_failed
    from workflow_runner.runs
    where parent_run_id = ${run.id} and parent_step_index = ${step.stepIndex}`);
  const [counts] = LoopCounts.parse(result).rows;
  if (!counts) throw new Error('a count has one row');
  return counts;
}

/** Makes the next `count` iterations not yet started due, in item order. */
export async function startIterations(
  { db, clock }: RunStore,
  run: RunRow,
  step: RunStepRow,
  count: number,
) {
  await db.execute(sql`
    update workflow_runner.runs set wake_at = ${clock.now().toISOString()}::timestamptz
    where id = any(array(
      select id from workflow_runner.runs
      where parent_run_id = ${run.id} and parent_step_index = ${step.stepIndex}
        and status = 'queued' and wake_at is null and lease_owner is null
      order by iteration limit ${count}))`);
}

const OutputRows = z.object({
  rows: z.array(
    z.object({
      iteration: z.number(),
      id: z.string(),
      name: z.string().nullable(),
      output: z.unknown(),
    }),
  ),
});

/** What a loop gives: each iteration's steps' outputs, by step name, in item order. */
export async function loopOutput({ db }: RunStore, run: RunRow, step: RunStepRow, count: number) {
  const result = OutputRows.parse(
    await db.execute(sql`
      select r.iteration, r.id, s.name, s.output
      from workflow_runner.runs r
      left join workflow_runner.run_steps s on s.run_id = r.id
      where r.parent_run_id = ${run.id} and r.parent_step_index = ${step.stepIndex}
      order by r.iteration, s.step_index`),
  );
  const iterations: { index: number; run_id: string; steps: Record<string, unknown> }[] = [];
  for (const row of result.rows) {
    let iteration = iterations[row.iteration];
    if (!iteration) {
      iteration = { index: row.iteration, run_id: row.id, steps: {} };
      iterations[row.iteration] = iteration;
    }
    if (row.name !== null) iteration.steps[row.name] = row.output ?? null;
  }
  // A run's page travels as one bus message: past the bound, each iteration's outputs are read
  // on its own run's page.
  if (Buffer.byteLength(JSON.stringify(iterations)) > MAX_LOOP_OUTPUT_BYTES) {
    return {
      count,
      iterations: iterations.map(({ index, run_id }) => ({ index, run_id })),
      outputs_left_out: true,
    };
  }
  return { count, iterations };
}

/** The largest loop output that holds each iteration's step outputs, as JSON. */
export const MAX_LOOP_OUTPUT_BYTES = 256 * 1024;

export async function iterationError(
  { db }: RunStore,
  run: RunRow,
  step: RunStepRow,
  iteration: number,
) {
  const [failed] = await db
    .select({ error: runs.error, status: runs.status })
    .from(runs)
    .where(
      and(
        eq(runs.parentRunId, run.id),
        eq(runs.parentStepIndex, step.stepIndex),
        eq(runs.iteration, iteration),
      ),
    );
  return failed?.status === 'cancelled' ? 'it was cancelled' : (failed?.error ?? 'it failed');
}

const CalledRunOutputs = z.object({ name: z.string(), output: z.unknown() });

/** A called run's status and error, and its steps' outputs once it succeeded. */
export async function calledRunResult({ db }: RunStore, calledId: string) {
  const [called] = await db
    .select({ status: runs.status, error: runs.error })
    .from(runs)
    .where(eq(runs.id, calledId));
  if (!called || called.status !== 'succeeded') return { run: called, steps: {} };
  const outputs = await db
    .select({ name: runSteps.name, output: runSteps.output })
    .from(runSteps)
    .where(eq(runSteps.runId, calledId))
    .orderBy(asc(runSteps.stepIndex));
  const steps = Object.fromEntries(
    outputs.map((row) => CalledRunOutputs.parse(row)).map((row) => [row.name, row.output ?? null]),
  );
  return { run: called, steps };
}

/**
 * Gives a run waiting for its runs back to the scheduler, due at `fallback` (a look in case a
 * wake was lost) unless one of them ended while it looked: their end moves its `wake_at` (see
 * run-relatives), and the row lock makes this statement see that move even when the two commit
 * side by side. Such a run is due at once.
 */
export async function releaseWaitingRun(
  { db }: RunStore,
  waiting: { run: RunRow; owner: string; fallback: Date },
): Promise<void> {
  const { run } = waiting;
  await db.execute(sql`
    update workflow_runner.runs as r
    set lease_owner = null, lease_until = null,
      wake_at = case
        when date_trunc('milliseconds', r.wake_at) is distinct from ${iso(run.wakeAt)}::timestamptz
          then r.wake_at
        else ${waiting.fallback.toISOString()}::timestamptz end
    where r.id = ${run.id} and r.lease_owner = ${waiting.owner}`);
}

const ParentLoopInput = z.object({ item: z.unknown(), index: z.number().int() });

/**
 * What an iteration's templates read besides its own steps: its loop's item and index, and all
 * its loop's run could read where the loop is (the steps before it, their `set` values, the
 * trigger's body), up the loops it is inside.
 */
export async function inheritedScopeOf(store: RunStore, run: RunRow): Promise<TemplateScope> {
  const { db } = store;
  if (run.iteration === null || run.parentRunId === null || run.parentStepIndex === null) {
    return { trigger: run.input, steps: {}, vars: {} };
  }
  const [parent] = await db.select().from(runs).where(eq(runs.id, run.parentRunId));
  if (!parent) throw new Error(`the loop's run ${run.parentRunId} is gone`);
  const [outer, before] = await Promise.all([
    inheritedScopeOf(store, parent),
    db
      .select({
        name: runSteps.name,
        type: runSteps.type,
        status: runSteps.status,
        output: runSteps.output,
      })
      .from(runSteps)
      .where(and(eq(runSteps.runId, parent.id), lt(runSteps.stepIndex, run.parentStepIndex)))
      .orderBy(asc(runSteps.stepIndex)),
  ]);
  const steps: Record<string, unknown> = { ...outer.steps };
  const vars: Record<string, unknown> = { ...outer.vars };
  for (const row of before) {
    steps[row.name] = row.output ?? null;
    if (row.type === 'set' && row.status === 'succeeded') Object.assign(vars, row.output);
  }
  const { item, index } = ParentLoopInput.parse(run.input);
  return { trigger: outer.trigger, steps, vars, loop: { item, index } };
}

class OverBudget extends Error {}

/** The root run the children count on, and the most it may have started. */
interface Budget {
  rootRunId: string;
  max: number;
}

/**
 * Creates a run's children and counts them on its root run in one transaction: false, and
 * nothing created, when the root would then have started more than `budget.max` runs through
 * its loops and calls. Runs that existed already (a look made again after a crash) are
 * not counted twice.
 */
async function withinBudget(
  { db }: RunStore,
  budget: Budget,
  create: (tx: SqlExecutor) => Promise<number>,
): Promise<boolean> {
  try {
    await db.transaction(async (tx) => {
      const created = await create(tx);
      if (created === 0) return;
      const counted = RowIds.parse(
        await tx.execute(sql`
          update workflow_runner.runs set descendant_runs = descendant_runs + ${created}
          where id = ${budget.rootRunId} and descendant_runs + ${created} <= ${budget.max}
          returning id`),
      );
      if (counted.rows.length === 0) throw new OverBudget();
    });
    return true;
  } catch (error) {
    if (error instanceof OverBudget) return false;
    throw error;
  }
}

/** A loop's iterations, built by the caller, within the root's budget. */
export const insertIterationsWithinBudget = (
  store: RunStore,
  budget: Budget,
  loaded: readonly LoadedRun[],
  now: Date,
) => withinBudget(store, budget, async (tx) => (await insertNewRuns(tx, loaded, now)).size);

/** A called workflow's run, within the root's budget. */
export const createCalledRunWithinBudget = (store: RunStore, budget: Budget, requested: NewRun) =>
  withinBudget(store, budget, async (tx) => (await createRuns(store, [requested], tx)).length);
