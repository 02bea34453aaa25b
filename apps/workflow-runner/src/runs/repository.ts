import {
  and,
  asc,
  desc,
  eq,
  gt,
  isNotNull,
  isNull,
  lt,
  lte,
  notInArray,
  or,
  sql,
} from 'drizzle-orm';
import { z } from 'zod';
import {
  FINAL_RUN_STATUSES,
  Step,
  type Run,
  type RunStatus,
  type StepRunStatus,
  type StepType,
} from '@wap/contracts';
import { type KeysetPosition, type Clock, type SqlDatabase } from '@wap/platform';
import { approvals, creditLedger, runs, runSteps } from '../db/schema';
import { anyOfUuids, type SqlExecutor } from '../db/sql-executor';
import type { WorkflowRow } from '../workflows/repository';

export type RunRow = typeof runs.$inferSelect;
export type RunStepRow = typeof runSteps.$inferSelect;

const FINAL_STEP_STATUSES: readonly StepRunStatus[] = ['succeeded', 'failed', 'skipped'];

export function isFinalStepStatus(status: string): boolean {
  return (FINAL_STEP_STATUSES as readonly string[]).includes(status);
}

/** A run with its steps, as stored. */
export interface LoadedRun {
  run: RunRow;
  steps: RunStepRow[];
}

/**
 * Runs created already leased to the executor `owner`: at most `count` of them, of those due
 * within `aheadMs` of their creation, each leased for `leaseMs` from its due time (a run decided
 * ahead stays its decider's until then, and is any replica's after that if the decider died).
 */
export interface CreationLease {
  owner: string;
  count: number;
  aheadMs: number;
  leaseMs: number;
}

export interface NewRun {
  runId: string;
  workflow: WorkflowRow;
  trigger:
    | { type: 'custom_webhook'; eventId: string }
    | { type: 'provider_event'; eventId: string }
    | { type: 'mcp'; keyId: string }
    | { type: 'manual'; testEventId: string | null }
    | { type: 'schedule' };
  input: unknown;
  inflightKey: string | null;
  notBefore: Date | null;
  /** The trace of what asked for the run (`activeTraceparent` where it was asked). */
  traceparent: string | null;
}

/** A step that started and ended without a write in between (a free, local step). */
export interface EndedStep {
  stepIndex: number;
  status: 'succeeded' | 'failed';
  input: unknown;
  output: unknown;
  error: string | null;
  startedAt: Date;
  finishedAt: Date;
}

/** What a run did since its last write; see `writeProgress`. */
export interface RunProgress {
  /** When the queued run started, if it started since the last write. */
  started: Date | null;
  endedSteps: EndedStep[];
  /** `skipRemaining`: some steps may still be pending and are to be marked skipped. */
  finish: { status: RunStatus; error: string | null; skipRemaining: boolean } | null;
}

const iso = (date: Date | null) => date?.toISOString() ?? null;

const RowIds = z.object({ rows: z.array(z.object({ id: z.string() })) });
/** Schemas are built once: zod compiles a schema's parser on its first use. */
const StoredSteps = z.array(Step);

/**
 * The API shape of a run. A `summary` (the run list) leaves out the trigger body and each step's
 * input and output: a page of full runs could outgrow one bus message (1 MiB); GET /runs/{id}
 * has them.
 */
export function toRun(
  row: RunRow,
  steps: readonly RunStepRow[],
  options: { summary?: boolean } = {},
): Run {
  const detail = <T>(value: T): T | undefined => (options.summary ? undefined : value);
  return {
    id: row.id,
    workflow_id: row.workflowId,
    workspace_id: row.workspaceId,
    status: row.status as RunStatus,
    trigger: {
      type: row.triggerType as Run['trigger']['type'],
      event_id: row.eventId,
      test_event_id: row.testEventId,
      key_id: row.keyId,
    },
    input: detail(row.input),
    steps: steps.map((step) => ({
      index: step.stepIndex,
      name: step.name,
      type: step.type as StepType,
      status: step.status as StepRunStatus,
      input: detail(step.input),
      output: detail(step.output),
      error: step.error,
      credits_charged: step.creditsCharged,
      started_at: iso(step.startedAt),
      finished_at: iso(step.finishedAt),
      duration_ms: step.durationMs,
    })),
    credits_charged: row.creditsCharged,
    error: row.error,
    not_before: iso(row.notBefore),
    created_at: row.createdAt.toISOString(),
    started_at: iso(row.startedAt),
    finished_at: iso(row.finishedAt),
  };
}

export function createRunRepository(deps: { db: SqlDatabase; clock: Clock }) {
  const { db, clock } = deps;

  async function stepsOf(runIds: readonly string[]): Promise<Map<string, RunStepRow[]>> {
    const byRun = new Map<string, RunStepRow[]>();
    if (runIds.length === 0) return byRun;
    const rows = await db
      .select()
      .from(runSteps)
      .where(sql`${runSteps.runId} = ${anyOfUuids(runIds)}`)
      .orderBy(asc(runSteps.runId), asc(runSteps.stepIndex));
    for (const row of rows) byRun.set(row.runId, [...(byRun.get(row.runId) ?? []), row]);
    return byRun;
  }

  /**
   * Creates runs and their steps (the workflow's steps as they are now) in one statement,
   * skipping ids that exist: a redelivered or republished request creates nothing new. Returns
   * the runs it created, as stored. With a `lease`, up to `lease.count` of the runs due within
   * `lease.aheadMs` are created leased to `lease.owner`, for it to execute at their due time
   * without claiming them. The rows travel as one JSON parameter: the statement's text and its
   * cost to build stay the same whatever the batch size.
   */
  async function createMany(
    requested: readonly NewRun[],
    executor: SqlExecutor = db,
    lease?: CreationLease,
  ): Promise<LoadedRun[]> {
    // A batch may hold one request twice (a republish delivered beside the original).
    const inputs = [...new Map(requested.map((input) => [input.runId, input])).values()];
    if (inputs.length === 0) return [];
    const now = clock.now();
    let leasesLeft = lease?.count ?? 0;
    // A batch holds many runs of one workflow: its steps are read once.
    const stepsByWorkflow = new Map<NewRun['workflow'], z.infer<typeof StoredSteps>>();
    const stepsOfWorkflow = (workflow: NewRun['workflow']) => {
      let steps = stepsByWorkflow.get(workflow);
      if (!steps) {
        steps = StoredSteps.parse(workflow.steps);
        stepsByWorkflow.set(workflow, steps);
      }
      return steps;
    };
    const loaded = inputs.map((input): LoadedRun => {
      const wakeAt = input.notBefore && input.notBefore > now ? input.notBefore : now;
      const leased =
        lease !== undefined && leasesLeft > 0 && wakeAt.getTime() <= now.getTime() + lease.aheadMs;
      if (leased) leasesLeft -= 1;
      return {
        run: {
          id: input.runId,
          workflowId: input.workflow.id,
          workspaceId: input.workflow.workspaceId,
          status: 'queued',
          triggerType: input.trigger.type,
          eventId:
            input.trigger.type === 'custom_webhook' || input.trigger.type === 'provider_event'
              ? input.trigger.eventId
              : null,
          testEventId: input.trigger.type === 'manual' ? input.trigger.testEventId : null,
          keyId: input.trigger.type === 'mcp' ? input.trigger.keyId : null,
          input: input.input ?? null,
          actingUserId: input.workflow.createdBy,
          stopOnNodeFailure: input.workflow.stopOnNodeFailure,
          creditCost: input.workflow.creditCost,
          creditsCharged: 0,
          inflightKey: input.inflightKey,
          error: null,
          notBefore: input.notBefore,
          wakeAt,
          leaseOwner: leased ? lease.owner : null,
          leaseUntil: leased ? new Date(wakeAt.getTime() + lease.leaseMs) : null,
          createdAt: now,
          startedAt: null,
          finishedAt: null,
          traceparent: input.traceparent,
        },
        steps: stepsOfWorkflow(input.workflow).map((step, index) => ({
          runId: input.runId,
          stepIndex: index,
          name: step.name,
          type: step.type,
          settings: step.settings,
          status: 'pending',
          input: null,
          output: null,
          error: null,
          creditsCharged: 0,
          resumeAt: null,
          startedAt: null,
          finishedAt: null,
          durationMs: null,
        })),
      };
    });
    const runRows = loaded.map(({ run }) => ({
      id: run.id,
      workflow_id: run.workflowId,
      workspace_id: run.workspaceId,
      trigger_type: run.triggerType,
      event_id: run.eventId,
      test_event_id: run.testEventId,
      key_id: run.keyId,
      input: run.input,
      acting_user_id: run.actingUserId,
      stop_on_node_failure: run.stopOnNodeFailure,
      credit_cost: run.creditCost,
      inflight_key: run.inflightKey,
      not_before: iso(run.notBefore),
      wake_at: iso(run.wakeAt),
      lease_owner: run.leaseOwner,
      lease_until: iso(run.leaseUntil),
      traceparent: run.traceparent,
    }));
    const stepRows = loaded.flatMap(({ steps }) =>
      steps.map((step) => ({
        run_id: step.runId,
        step_index: step.stepIndex,
        name: step.name,
        type: step.type,
        settings: step.settings,
      })),
    );
    const result = await executor.execute(sql`
      with created as (
        insert into workflow_runner.runs (id, workflow_id, workspace_id, status, trigger_type,
          event_id, test_event_id, key_id, input, acting_user_id, stop_on_node_failure,
          credit_cost, inflight_key, not_before, wake_at, lease_owner, lease_until, created_at,
          traceparent)
        select id, workflow_id, workspace_id, 'queued', trigger_type, event_id, test_event_id,
          key_id, input, acting_user_id, stop_on_node_failure, credit_cost, inflight_key,
          not_before, wake_at, lease_owner, lease_until, ${now.toISOString()}::timestamptz,
          traceparent
        from jsonb_to_recordset(${JSON.stringify(runRows)}::jsonb) as x(id uuid,
          workflow_id uuid, workspace_id uuid, trigger_type text, event_id uuid,
          test_event_id uuid, key_id uuid, input jsonb, acting_user_id uuid,
          stop_on_node_failure boolean, credit_cost integer, inflight_key text,
          not_before timestamptz, wake_at timestamptz, lease_owner text, lease_until timestamptz,
          traceparent text)
        on conflict (id) do nothing
        returning id
      ), created_steps as (
        insert into workflow_runner.run_steps (run_id, step_index, name, type, settings, status)
        select run_id, step_index, name, type, settings, 'pending'
        from jsonb_to_recordset(${JSON.stringify(stepRows)}::jsonb) as x(run_id uuid,
          step_index integer, name text, type text, settings jsonb)
        where run_id in (select id from created)
      )
      select id from created`);
    const created = new Set(RowIds.parse(result).rows.map((row) => row.id));
    return loaded.filter(({ run }) => created.has(run.id));
  }

  return {
    createMany,

    /** One run; false when a run with this id exists already. */
    async create(input: NewRun): Promise<boolean> {
      return (await createMany([input])).length > 0;
    },

    async get(runId: string): Promise<{ run: RunRow; steps: RunStepRow[] } | undefined> {
      const [run] = await db.select().from(runs).where(eq(runs.id, runId));
      if (!run) return undefined;
      return { run, steps: (await stepsOf([run.id])).get(run.id) ?? [] };
    },

    /** The run a webhook event started, if any. */
    async findByEvent(eventId: string): Promise<Pick<RunRow, 'id' | 'status'> | undefined> {
      const [row] = await db
        .select({ id: runs.id, status: runs.status })
        .from(runs)
        .where(eq(runs.eventId, eventId))
        .limit(1);
      return row;
    },

    /**
     * Up to `limit` runs of the workflow older than `before` (a page's last run), newest first,
     * of one status when given: keyset paging, so a page costs the same however deep it is.
     */
    async listByWorkflow(
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
      const steps = await stepsOf(rows.map((row) => row.id));
      return rows.map((row) => toRun(row, steps.get(row.id) ?? [], { summary: true }));
    },

    /**
     * Leases up to `limit` due runs to `owner` and returns them with their steps (two reads for
     * the whole batch, not two per run): due means `wake_at` has passed and no live lease holds
     * the run. SKIP LOCKED lets replicas claim side by side without waiting on each other.
     */
    async claimDue(owner: string, leaseMs: number, limit: number): Promise<LoadedRun[]> {
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
      const steps = await stepsOf(claimed.map((run) => run.id));
      return claimed.map((run) => ({ run, steps: steps.get(run.id) ?? [] }));
    },

    /**
     * Runs not ended yet that hold an in-flight key and were created before `createdBefore`:
     * the page of `limit` after the run id `afterId`, in id order.
     */
    async unfinishedHoldingInflightKeys(
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
    },

    /**
     * Deletes at most `limit` runs that ended before `endedBefore`, with their steps and
     * approvals, and returns how many runs went. They are found workflow by workflow through
     * runs_workflow_idx (a run ends after it was created), so that neither the whole history is
     * read nor an index is added to the writes every run makes. Rows another replica is deleting
     * are skipped, so two passes never wait on each other. The steps and approvals are matched
     * through an array sub-select, planned as an index scan without table statistics (see
     * `anyOfUuids`); an `in` sub-select was planned as a sequential scan of both tables.
     */
    async deleteEndedBefore(endedBefore: Date, limit: number): Promise<number> {
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
    },

    /** Extends the lease while the run executes; false when another owner has taken it. */
    async renewLease(runId: string, owner: string, leaseMs: number): Promise<boolean> {
      const renewed = await db
        .update(runs)
        .set({ leaseUntil: new Date(clock.now().getTime() + leaseMs) })
        .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner)))
        .returning({ id: runs.id });
      return renewed.length > 0;
    },

    /**
     * Extends the leases of runs held for their due time in one statement, never shortening one
     * that reaches further; returns the ids still held by `owner`.
     */
    async extendLeases(
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
    },

    /** Gives held runs back unchanged otherwise: any replica claims them at their due time. */
    async releaseHeld(runIds: readonly string[], owner: string): Promise<void> {
      if (runIds.length === 0) return;
      await db
        .update(runs)
        .set({ leaseOwner: null, leaseUntil: null })
        .where(and(sql`${runs.id} = ${anyOfUuids(runIds)}`, eq(runs.leaseOwner, owner)));
    },

    /** Gives the run back to the scheduler, due again at `wakeAt` (null: not until something changes). */
    async release(runId: string, owner: string, wakeAt: Date | null): Promise<void> {
      await db
        .update(runs)
        .set({ leaseOwner: null, leaseUntil: null, wakeAt })
        .where(and(eq(runs.id, runId), eq(runs.leaseOwner, owner)));
    },

    /**
     * Writes what runs did since their last write in one transaction (one commit for all of
     * them): each run's start, the steps that ended in between, and its end if it ended. A crash
     * before the commit leaves the runs as they were, and a resumed run executes those steps
     * again (they are free and local). At most four statements, whatever the number of runs.
     */
    async writeProgress(entries: readonly { run: RunRow; progress: RunProgress }[]): Promise<void> {
      const endedSteps = entries.flatMap(({ run, progress }) =>
        progress.endedSteps.map((step) => ({
          run_id: run.id,
          step_index: step.stepIndex,
          status: step.status,
          input: step.input ?? null,
          output: step.output ?? null,
          error: step.error,
          started_at: step.startedAt.toISOString(),
          finished_at: step.finishedAt.toISOString(),
          duration_ms: Math.max(0, step.finishedAt.getTime() - step.startedAt.getTime()),
        })),
      );
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
    },

    async markRunning(runId: string): Promise<void> {
      await db
        .update(runs)
        .set({ status: 'running', startedAt: clock.now() })
        .where(and(eq(runs.id, runId), eq(runs.status, 'queued')));
    },

    async startStep(
      runId: string,
      stepIndex: number,
      values: { input: unknown; startedAt: Date },
    ): Promise<void> {
      await db
        .update(runSteps)
        .set({ status: 'running', input: values.input, startedAt: values.startedAt })
        .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
    },

    async setStepCharge(runId: string, stepIndex: number, credits: number): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .update(runSteps)
          .set({ creditsCharged: credits })
          .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
        await tx
          .update(runs)
          .set({
            creditsCharged: sql`(select coalesce(sum(${runSteps.creditsCharged}), 0) from ${runSteps} where ${runSteps.runId} = ${runId})`,
          })
          .where(eq(runs.id, runId));
      });
    },

    async endStep(
      runId: string,
      step: RunStepRow,
      values: { status: 'succeeded' | 'failed'; output: unknown; error: string | null },
    ): Promise<void> {
      const now = clock.now();
      const startedAt = step.startedAt ?? now;
      await db
        .update(runSteps)
        .set({
          status: values.status,
          output: values.output ?? null,
          error: values.error,
          finishedAt: now,
          durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
        })
        .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, step.stepIndex)));
    },

    /**
     * Ends a paid step that failed before anything left the platform and gives its charge back,
     * in one transaction (decision 127): the step's and the run's credits_charged drop by the
     * charge, and the ledger gets a refund entry with the reason. A second call (a resumed run)
     * refunds nothing more.
     */
    async failStepWithRefund(
      run: { id: string; workspaceId: string },
      step: RunStepRow,
      values: { output: unknown; error: string },
      refund: { entryId: string; amount: number; reason: string },
    ): Promise<void> {
      const now = clock.now();
      const startedAt = step.startedAt ?? now;
      await db.transaction(async (tx) => {
        await tx
          .update(runSteps)
          .set({
            status: 'failed',
            output: values.output ?? null,
            error: values.error,
            finishedAt: now,
            durationMs: Math.max(0, now.getTime() - startedAt.getTime()),
            creditsCharged: 0,
          })
          .where(and(eq(runSteps.runId, run.id), eq(runSteps.stepIndex, step.stepIndex)));
        await tx
          .update(runs)
          .set({
            creditsCharged: sql`(select coalesce(sum(${runSteps.creditsCharged}), 0) from ${runSteps} where ${runSteps.runId} = ${run.id})`,
          })
          .where(eq(runs.id, run.id));
        await tx
          .insert(creditLedger)
          .values({
            id: refund.entryId,
            workspaceId: run.workspaceId,
            amount: refund.amount,
            kind: 'refund',
            reason: refund.reason,
            createdBy: null,
            createdAt: now,
            runId: run.id,
            stepIndex: step.stepIndex,
          })
          .onConflictDoNothing();
      });
    },

    async setStepResumeAt(runId: string, stepIndex: number, resumeAt: Date): Promise<void> {
      await db
        .update(runSteps)
        .set({ resumeAt })
        .where(and(eq(runSteps.runId, runId), eq(runSteps.stepIndex, stepIndex)));
    },

    /** Pauses at an approval step: the approval is recorded once and the step waits for it. */
    async awaitApproval(
      run: RunRow,
      stepIndex: number,
      approval: { id: string; reviewerIds: string[]; message: string | null },
    ): Promise<void> {
      await db.transaction(async (tx) => {
        await tx
          .insert(approvals)
          .values({
            id: approval.id,
            runId: run.id,
            stepIndex,
            workspaceId: run.workspaceId,
            reviewerIds: approval.reviewerIds,
            message: approval.message,
            status: 'pending',
            createdAt: clock.now(),
          })
          .onConflictDoNothing();
        await tx
          .update(runSteps)
          .set({ status: 'waiting' })
          .where(and(eq(runSteps.runId, run.id), eq(runSteps.stepIndex, stepIndex)));
        await tx.update(runs).set({ status: 'waiting_approval' }).where(eq(runs.id, run.id));
      });
    },
  };
}

export type RunRepository = ReturnType<typeof createRunRepository>;
