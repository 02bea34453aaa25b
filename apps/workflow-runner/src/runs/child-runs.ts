import { z } from 'zod';
import {
  CallWorkflowSettings,
  FINAL_RUN_STATUSES,
  ForEachSettings,
  MAX_RUN_DEPTH,
  Step,
} from '@wap/contracts';
import { toJsonbStorable, type Clock } from '@wap/platform';
import { uuidOfName } from '../db/name-uuid';
import type { WorkflowRepository } from '../workflows/repository';
import { pendingStepsOf } from './run-creation';
import type { RunRepository } from './repository';
import type { LoadedRun, RunRow, RunStepRow } from './run-rows';
import { evaluated, resolveTemplates, type TemplateScope } from './templates';
import { ExpressionError } from '../expressions/expressions';

/**
 * The control steps that run other runs (decision 165): a for_each runs each item as a run of
 * its steps (an iteration), a call_workflow a run of another workflow. Each is created once (its
 * id is named by the parent, the step and the item), so a runner that dies in between creates
 * nothing twice; a finished iteration is never run again. The parent waits in the scheduler table
 * and is made due by each of its runs' end, in the transaction that ends it (run-relatives).
 */
export type ChildOutcome =
  | { kind: 'succeeded'; input: unknown; output: unknown }
  | { kind: 'failed'; input: unknown; error: string }
  /** Runs are under way: the step waits for them. */
  | { kind: 'wait_children'; input: unknown };

export interface ChildRunDeps {
  clock: Clock;
  /** RUN_MAX_DESCENDANTS */
  maxDescendantRuns: number;
  runs: Pick<
    RunRepository,
    | 'createCalledRunWithinBudget'
    | 'insertIterationsWithinBudget'
    | 'loopCounts'
    | 'startIterations'
    | 'loopOutput'
    | 'iterationError'
    | 'calledRunResult'
  >;
  workflows: Pick<WorkflowRepository, 'find'>;
  onRunCreated: () => void;
}

const LoopRowSettings = ForEachSettings.extend({ steps: z.array(Step) });
export const iterationRunIdOf = (runId: string, stepIndex: number, iteration: number) =>
  uuidOfName(`iteration:${runId}:${stepIndex}:${iteration}`);
export const calledRunIdOf = (runId: string, stepIndex: number) =>
  uuidOfName(`call:${runId}:${stepIndex}`);

/** The run started from outside that `run` descends from: its loops' and calls' runs count there. */
const rootOf = (run: RunRow) => run.rootRunId ?? run.id;

const budgetRefusal = (deps: ChildRunDeps) =>
  `A run starts at most ${deps.maxDescendantRuns.toLocaleString('en-US')} runs through its loops and calls, all levels counted`;

function depthRefusal(run: RunRow): string | undefined {
  return run.depth + 1 > MAX_RUN_DEPTH
    ? `Loops and calls nest at most ${MAX_RUN_DEPTH} runs deep`
    : undefined;
}

/** The iterations of a loop, as run rows with their steps: the first `concurrency` due now. */
function iterationsOf(
  run: RunRow,
  step: RunStepRow,
  items: readonly unknown[],
  settings: z.infer<typeof LoopRowSettings>,
  now: Date,
): LoadedRun[] {
  return items.map((item, index) => {
    const id = iterationRunIdOf(run.id, step.stepIndex, index);
    return {
      run: {
        ...run,
        id,
        status: 'queued',
        triggerType: 'for_each',
        eventId: null,
        testEventId: null,
        keyId: null,
        input: toJsonbStorable({ item, index }),
        // The loop's run passed the credit check; each step is charged as it runs.
        creditCost: 0,
        creditsCharged: 0,
        inflightKey: null,
        error: null,
        notBefore: null,
        wakeAt: index < settings.concurrency ? now : null,
        leaseOwner: null,
        leaseUntil: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        failedRunId: null,
        cancelRequestedAt: null,
        retryOf: null,
        attempt: 1,
        parentRunId: run.id,
        parentStepIndex: step.stepIndex,
        iteration: index,
        depth: run.depth + 1,
        rootRunId: rootOf(run),
        descendantRuns: 0,
      },
      steps: pendingStepsOf(id, settings.steps),
    };
  });
}

/**
 * One look at a for_each: the first look evaluates its items and creates the iterations; each
 * look after starts iterations as the concurrency allows, and ends the step once every
 * iteration has ended (failed at the first that failed, once those under way have ended).
 */
export async function advanceLoop(
  deps: ChildRunDeps,
  run: RunRow,
  step: RunStepRow,
  scope: TemplateScope,
): Promise<ChildOutcome> {
  const settings = LoopRowSettings.parse(step.settings);
  const input = { items: settings.items, concurrency: settings.concurrency };
  if (step.status === 'pending') {
    let items: unknown;
    try {
      items = evaluated(settings.items, scope);
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      return { kind: 'failed', input, error: `An expression failed: ${error.message}` };
    }
    if (!Array.isArray(items)) {
      const got = items === null ? 'null' : typeof items;
      return { kind: 'failed', input, error: `The items gave ${got}, not a list` };
    }
    if (items.length > settings.maxItems) {
      return {
        kind: 'failed',
        input,
        error: `The list has ${items.length} items; this for_each takes at most ${settings.maxItems}`,
      };
    }
    if (items.length === 0)
      return { kind: 'succeeded', input, output: { count: 0, iterations: [] } };
    const refusal = depthRefusal(run);
    if (refusal) return { kind: 'failed', input, error: refusal };
    const now = deps.clock.now();
    const iterations = iterationsOf(run, step, items, settings, now);
    if (
      !(await deps.runs.insertIterationsWithinBudget(
        { rootRunId: rootOf(run), max: deps.maxDescendantRuns },
        iterations,
        now,
      ))
    ) {
      return { kind: 'failed', input, error: budgetRefusal(deps) };
    }
    deps.onRunCreated();
  }
  const counts = await deps.runs.loopCounts(run, step);
  const shown = { ...input, count: counts.created };
  if (counts.failed > 0 && counts.first_failed !== null) {
    if (counts.in_flight > 0) return { kind: 'wait_children', input: shown };
    const error = await deps.runs.iterationError(run, step, counts.first_failed);
    return {
      kind: 'failed',
      input: shown,
      error: `Iteration ${counts.first_failed + 1} of ${counts.created} failed: ${error}`,
    };
  }
  if (counts.ended === counts.created) {
    return {
      kind: 'succeeded',
      input: shown,
      output: await deps.runs.loopOutput(run, step, counts.created),
    };
  }
  const free = settings.concurrency - counts.in_flight;
  if (free > 0 && counts.created - counts.ended > counts.in_flight) {
    await deps.runs.startIterations(run, step, free);
    deps.onRunCreated();
  }
  return { kind: 'wait_children', input: shown };
}

/**
 * One look at a call_workflow: the first starts the called workflow's run (its live version
 * when it has one), acting as that workflow's own `runs_as`; a call that waits then ends when
 * that run ends, with its steps' outputs, and fails when it fails.
 */
export async function advanceCall(
  deps: ChildRunDeps,
  run: RunRow,
  step: RunStepRow,
  scope: TemplateScope,
): Promise<ChildOutcome> {
  let settings: z.infer<typeof CallWorkflowSettings>;
  try {
    settings = CallWorkflowSettings.parse(resolveTemplates(step.settings, scope));
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return {
      kind: 'failed',
      input: step.settings,
      error: `An expression failed: ${error.message}`,
    };
  }
  const input = settings;
  const calledId = calledRunIdOf(run.id, step.stepIndex);
  if (step.status === 'pending') {
    const workflow = await deps.workflows.find(settings.workflowId);
    if (!workflow || workflow.workspaceId !== run.workspaceId) {
      return { kind: 'failed', input, error: 'The called workflow does not exist' };
    }
    const refusal = depthRefusal(run);
    if (refusal) return { kind: 'failed', input, error: refusal };
    const created = await deps.runs.createCalledRunWithinBudget(
      { rootRunId: rootOf(run), max: deps.maxDescendantRuns },
      {
        runId: calledId,
        workflow,
        trigger: { type: 'call_workflow' },
        input: toJsonbStorable(settings.input ?? null),
        inflightKey: null,
        notBefore: null,
        traceparent: run.traceparent,
        caller: {
          runId: run.id,
          stepIndex: step.stepIndex,
          depth: run.depth + 1,
          rootRunId: rootOf(run),
          waits: settings.wait,
        },
      },
    );
    if (!created) return { kind: 'failed', input, error: budgetRefusal(deps) };
    deps.onRunCreated();
    if (!settings.wait) return { kind: 'succeeded', input, output: { run_id: calledId } };
  }
  const { run: called, steps } = await deps.runs.calledRunResult(calledId);
  if (!called || !(FINAL_RUN_STATUSES as readonly string[]).includes(called.status)) {
    return { kind: 'wait_children', input };
  }
  if (called.status !== 'succeeded') {
    const why = called.status === 'cancelled' ? 'it was cancelled' : (called.error ?? 'it failed');
    return { kind: 'failed', input, error: `The called run failed: ${why}` };
  }
  return { kind: 'succeeded', input, output: { run_id: calledId, status: called.status, steps } };
}
