import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { Step } from '@wap/contracts';
import { stepRowsOf } from './step-rows';
import type { SqlExecutor } from '../db/sql-executor';
import { asPublished } from '../workflows/versions';
import {
  iso,
  RowIds,
  type CreationLease,
  type LoadedRun,
  type NewRun,
  type RunStore,
} from './run-rows';

/** Schemas are built once: zod compiles a schema's parser on its first use. */
const StoredSteps = z.array(Step);

/**
 * Creates runs and their steps (the workflow's steps as they are now) in one statement,
 * skipping ids that exist: a redelivered or republished request creates nothing new. Returns
 * the runs it created, as stored. With a `lease`, up to `lease.count` of the runs due within
 * `lease.aheadMs` are created leased to `lease.owner`, for it to execute at their due time
 * without claiming them. The rows travel as one JSON parameter: the statement's text and its
 * cost to build stay the same whatever the batch size.
 */
export async function createRuns(
  { db, clock }: RunStore,
  requested: readonly NewRun[],
  executor: SqlExecutor = db,
  lease?: CreationLease,
): Promise<LoadedRun[]> {
  // A batch may hold one request twice (a republish delivered beside the original).
  const inputs = [...new Map(requested.map((input) => [input.runId, input])).values()];
  if (inputs.length === 0) return [];
  const now = clock.now();
  // Live traffic runs the published version; Run (a manual run) runs the newest.
  const published = await asPublished(
    executor,
    inputs.filter((input) => input.trigger.type !== 'manual').map((input) => input.workflow),
  );
  const loaded = runsAsCreated(
    inputs.map((input) =>
      input.trigger.type === 'manual'
        ? input
        : { ...input, workflow: published.get(input.workflow.id) ?? input.workflow },
    ),
    now,
    lease,
  );
  const created = await insertNewRuns(executor, loaded, now);
  return loaded.filter(({ run }) => created.has(run.id));
}

/** The runs and steps as they are stored once created, leases handed out as `lease` allows. */
function runsAsCreated(
  inputs: readonly NewRun[],
  now: Date,
  lease: CreationLease | undefined,
): LoadedRun[] {
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
  return inputs.map((input): LoadedRun => {
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
        actingUserId: input.workflow.runsAs,
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
        failedRunId:
          input.trigger.type === 'custom_webhook' ? (input.trigger.failedRunId ?? null) : null,
        cancelRequestedAt: null,
        retryOf: null,
        attempt: 1,
        workflowVersion: input.workflow.version,
        parentRunId: input.caller?.waits ? input.caller.runId : null,
        parentStepIndex: input.caller?.waits ? input.caller.stepIndex : null,
        iteration: null,
        depth: input.caller?.depth ?? 0,
        rootRunId: input.caller?.rootRunId ?? null,
        descendantRuns: 0,
      },
      steps: pendingStepsOf(input.runId, stepsOfWorkflow(input.workflow)),
    };
  });
}

/** A new run's step rows, every one pending. */
export function pendingStepsOf(runId: string, steps: readonly Step[]): LoadedRun['steps'] {
  return stepRowsOf(steps).map((row, index) => ({
    runId,
    stepIndex: index,
    ...row,
    status: 'pending',
    input: null,
    output: null,
    error: null,
    creditsCharged: 0,
    resumeAt: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    attempt: 0,
    attempts: [],
    resumed: false,
  }));
}

/** Inserts the runs and their steps in one statement; returns the ids it created. */
export async function insertNewRuns(
  executor: SqlExecutor,
  loaded: readonly LoadedRun[],
  now: Date,
): Promise<Set<string>> {
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
    failed_run_id: run.failedRunId,
    workflow_version: run.workflowVersion,
    parent_run_id: run.parentRunId,
    parent_step_index: run.parentStepIndex,
    iteration: run.iteration,
    depth: run.depth,
    root_run_id: run.rootRunId,
  }));
  const stepRows = loaded.flatMap(({ steps }) =>
    steps.map((step) => ({
      run_id: step.runId,
      step_index: step.stepIndex,
      name: step.name,
      type: step.type,
      settings: step.settings,
      policy: step.policy,
      parent_index: step.parentIndex,
      branch: step.branch,
    })),
  );
  const result = await executor.execute(sql`
    with created as (
      insert into workflow_runner.runs (id, workflow_id, workspace_id, status, trigger_type,
        event_id, test_event_id, key_id, input, acting_user_id, stop_on_node_failure,
        credit_cost, inflight_key, not_before, wake_at, lease_owner, lease_until, created_at,
        traceparent, failed_run_id, workflow_version, parent_run_id, parent_step_index,
        iteration, depth, root_run_id)
      select id, workflow_id, workspace_id, 'queued', trigger_type, event_id, test_event_id,
        key_id, input, acting_user_id, stop_on_node_failure, credit_cost, inflight_key,
        not_before, wake_at, lease_owner, lease_until, ${now.toISOString()}::timestamptz,
        traceparent, failed_run_id, workflow_version, parent_run_id, parent_step_index,
        iteration, depth, root_run_id
      from jsonb_to_recordset(${JSON.stringify(runRows)}::jsonb) as x(id uuid,
        workflow_id uuid, workspace_id uuid, trigger_type text, event_id uuid,
        test_event_id uuid, key_id uuid, input jsonb, acting_user_id uuid,
        stop_on_node_failure boolean, credit_cost integer, inflight_key text,
        not_before timestamptz, wake_at timestamptz, lease_owner text, lease_until timestamptz,
        traceparent text, failed_run_id uuid, workflow_version integer, parent_run_id uuid,
        parent_step_index integer, iteration integer, depth integer, root_run_id uuid)
      on conflict (id) do nothing
      returning id
    ), created_steps as (
      insert into workflow_runner.run_steps (run_id, step_index, name, type, settings, status,
        policy, parent_index, branch)
      select run_id, step_index, name, type, settings, 'pending', policy, parent_index, branch
      from jsonb_to_recordset(${JSON.stringify(stepRows)}::jsonb) as x(run_id uuid,
        step_index integer, name text, type text, settings jsonb, policy jsonb,
        parent_index integer, branch text)
      where run_id in (select id from created)
    )
    select id from created`);
  return new Set(RowIds.parse(result).rows.map((row) => row.id));
}
