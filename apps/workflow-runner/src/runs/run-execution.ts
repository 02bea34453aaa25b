import type { Logger } from 'pino';
import {
  CREDIT_MESSAGES,
  credentialNamesIn,
  credentialPlaceholder,
  creditShortfallMessage,
  redactCredentialHeaders,
  isControlStepType,
  stepIdempotencyKey,
  type ActionStepType,
  type StepType,
  RUN_CANCELLED,
} from '@wap/contracts';
import { markSpanFailed, metrics, runInSpan } from '@wap/observability';
import { toJsonbStorable, type Clock, type IdSource, type KvBucket } from '@wap/platform';
import { withoutSecrets, type CredentialResolver } from '../credentials/resolver';
import type { CreditLedger } from '../credits/ledger';
import type { CreditSnapshots } from '../credits/snapshots';
import { ExpressionError } from '../expressions/expressions';
import type { WorkflowRepository } from '../workflows/repository';
import { STEP_PRICES } from '../workflows/step-catalog';
import { startFailureWorkflow } from './failure-workflows';
import type { RunRepository } from './repository';
import {
  isFinalStepStatus,
  type EndedStep,
  type LoadedRun,
  type RunProgress,
  type RunRow,
  type RunStepRow,
} from './run-rows';
import type { StepExecutor, StepOutcome } from './steps';
import {
  failureRouteOf,
  retryAfter,
  retryDelayMs,
  routeStopsRun,
  storedAttemptsOf,
  storedPolicyOf,
  type StepPolicy,
  type StoredAttempt,
} from './step-policy';
import { advanceCall, advanceLoop, type ChildOutcome } from './child-runs';
import { decideControlStep } from './control-steps';
import { onUntakenBranch } from './step-rows';
import { resolveTemplates, type TemplateScope } from './templates';

/** What executing one run needs from the executor that claimed it. */
export interface RunExecutionContext {
  runs: RunRepository;
  ledger: CreditLedger;
  snapshots: CreditSnapshots;
  steps: StepExecutor;
  /** Opens the workspace credentials an http_request step names, for the run's acting user. */
  credentials: CredentialResolver;
  /** WEBHOOK_INFLIGHT_BUCKET */
  inflight: KvBucket;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  /** The executor's name as a lease owner. */
  owner: string;
  /** The executor is stopping: the run goes back to the table after its current step. */
  isStopping: () => boolean;
  /** Writes a run's progress; runs ending side by side share one commit. */
  writeProgress: (entry: { run: RunRow; progress: RunProgress }) => Promise<void>;
  /** The most runs a root run's loops and calls may start (RUN_MAX_DESCENDANTS). */
  maxDescendantRuns: number;
  /** Where a step's `onFailure: run_workflow` and a call_workflow find the workflow to start. */
  workflows: Pick<WorkflowRepository, 'find'>;
  /**
   * A run was created here (a failure workflow's, a loop's iterations) or made due (the run
   * waiting for one that ended): the executor looks for it at once.
   */
  onRunCreated: () => void;
}

/** After a step: go on with the next one, or the run has ended or been parked. */
type StepEnd = 'next' | 'stop';

/** A step about to execute, with what its start decided. */
interface StartedStep {
  step: RunStepRow;
  input: unknown;
  /**
   * The input as the run's history keeps it: credentials as `[credential <name>]`, an
   * http_request's credential headers redacted.
   */
  shownInput: unknown;
  /** The credentials' values the input holds: scrubbed from what the step brings back. */
  secrets: readonly string[];
  startedAt: Date;
  price: number;
  policy: StepPolicy;
  /** The attempts that ended before this one. */
  attempts: StoredAttempt[];
  /** Aborted when the run is cancelled. */
  cancellation: AbortSignal;
}

/**
 * Executes a claimed run from its first unfinished step until it ends, waits (a delay, an
 * approval) or the executor stops; each step's outcome is on record before the next starts.
 */
export async function executeRun(
  context: RunExecutionContext,
  loaded: LoadedRun,
  balances: ReadonlyMap<string, number>,
  cancellation: AbortSignal,
): Promise<void> {
  const { run, steps } = loaded;
  const { runs, owner, clock } = context;
  if (run.status === 'waiting_approval') {
    await runs.release(run.id, owner, null);
    return;
  }
  const record = createRunRecord(context, loaded);
  // A cancel asked for while no runner could stop it (the one running it died): it ends here.
  if (run.cancelRequestedAt) {
    await record.finish('cancelled', RUN_CANCELLED);
    return;
  }
  if (run.status === 'queued') {
    // An iteration is part of its loop's run, which passed this check.
    const message =
      run.iteration === null
        ? creditShortfallMessage(balances.get(run.workspaceId) ?? 0, run.creditCost)
        : null;
    if (message) {
      await record.finish('failed', message);
      return;
    }
    record.start(clock.now());
    metrics.runsStarted.inc({ trigger: run.triggerType });
  }

  const inherited = await runs.inheritedScope(run);
  const values: RunValues = {
    ...inherited,
    steps: { ...inherited.steps },
    vars: { ...inherited.vars },
  };
  for (const step of steps) {
    if (isFinalStepStatus(step.status)) {
      remember(values, step, step.status, step.output);
      // A runner died between a failure that ends the run and the run's end: it ends now.
      if (step.status === 'failed' && stopsRun(run, step)) {
        await stopAtFailure(context, record, run, step, step.error ?? '');
        return;
      }
      continue;
    }
    if (onUntakenBranch(steps, step)) {
      record.endFreeStep({
        stepIndex: step.stepIndex,
        status: 'skipped',
        input: null,
        output: null,
        error: null,
        startedAt: null,
        finishedAt: null,
      });
      step.status = 'skipped';
      remember(values, step, 'skipped', null);
      continue;
    }
    if (step.status === 'waiting') {
      await record.flush();
      await runs.release(run.id, owner, null);
      return;
    }
    if (cancellation.aborted) {
      await record.finish('cancelled', RUN_CANCELLED);
      return;
    }
    if (context.isStopping()) {
      await record.flush();
      await runs.release(run.id, owner, clock.now());
      return;
    }
    if ((await executeStep(context, record, run, step, values, cancellation)) === 'stop') return;
  }
  await record.finish('succeeded', null);
}

/** What a run's templates read as it goes: mutable, each step's output is added as it ends. */
type RunValues = TemplateScope & { steps: Record<string, unknown>; vars: Record<string, unknown> };

/** A step's output becomes readable by the steps after it; a set step's values become `vars`. */
function remember(values: RunValues, step: RunStepRow, status: string, output: unknown): void {
  values.steps[step.name] = output ?? null;
  if (step.type === 'set' && status === 'succeeded' && typeof output === 'object' && output) {
    Object.assign(values.vars, output);
  }
}

/**
 * A run's progress not yet written. Free steps that end at once are kept here and written with
 * the next write the run needs anyway (a paid step, a wait, the end): a run of free steps costs
 * one commit, not one per start and end of each.
 */
function createRunRecord(context: RunExecutionContext, { run, steps }: LoadedRun) {
  let progress: RunProgress = { started: null, endedSteps: [], finish: null };
  // A run refused before it started (no credits) ends with the time it waited in the queue.
  let runStartedAt = run.startedAt ?? run.createdAt;

  async function flush(): Promise<void> {
    if (!progress.started && progress.endedSteps.length === 0 && !progress.finish) return;
    await context.writeProgress({ run, progress });
    progress = { started: null, endedSteps: [], finish: null };
  }

  return {
    flush,
    start(at: Date): void {
      progress.started = at;
      runStartedAt = at;
    },
    endFreeStep(ended: EndedStep): void {
      progress.endedSteps.push(ended);
    },
    async finish(
      status: 'succeeded' | 'failed' | 'cancelled',
      error: string | null,
    ): Promise<void> {
      const ended = new Set(progress.endedSteps.map((step) => step.stepIndex));
      const skipRemaining = steps.some(
        (step) => !isFinalStepStatus(step.status) && !ended.has(step.stepIndex),
      );
      progress.finish = { status, error, skipRemaining };
      await flush();
      context.logger.info({ runId: run.id, status }, 'run ended');
      metrics.runDuration.observe(
        { status },
        Math.max(0, context.clock.now().getTime() - runStartedAt.getTime()) / 1000,
      );
      await releaseInflight(context, run);
      // Its end made the run waiting for it due: it is looked for now, not at the next poll.
      if (run.parentRunId) context.onRunCreated();
    },
  };
}

type RunRecord = ReturnType<typeof createRunRecord>;

/**
 * An identical request may run again once the run has ended. The run's end is committed
 * first: a crash before this delete leaves a key whose run has ended, which webhook-ingest
 * takes over once the claim is old enough (decision 40).
 */
async function releaseInflight(context: RunExecutionContext, run: RunRow): Promise<void> {
  if (!run.inflightKey) return;
  await context.inflight.delete(run.inflightKey);
}

async function executeStep(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  step: RunStepRow,
  values: RunValues,
  cancellation: AbortSignal,
): Promise<StepEnd> {
  const { clock } = context;
  if (isControlStepType(step.type)) {
    return executeControlStep(context, record, run, step, values, cancellation);
  }
  const credentialNames = step.type === 'http_request' ? credentialNamesIn(step.settings) : [];
  const credentials = await context.credentials.resolve(
    run.workspaceId,
    run.actingUserId,
    credentialNames,
  );
  const filled = filledSettings(step, values, {
    values: credentials.ok ? credentials.values : undefined,
    placeholders: new Map(credentialNames.map((name) => [name, credentialPlaceholder(name)])),
  });
  const started: StartedStep = {
    step,
    startedAt: step.startedAt ?? clock.now(),
    input: filled.input,
    shownInput: filled.shownInput,
    secrets: credentials.ok ? [...credentials.values.values()] : [],
    price: STEP_PRICES[step.type as StepType],
    policy: storedPolicyOf(step.policy),
    attempts: storedAttemptsOf(step.attempts),
    cancellation,
  };
  const refusal = credentials.ok ? filled.error : `Credential "${credentials.name}" not found`;
  if (refusal !== undefined) {
    // Nothing was sent, nothing is charged: the step fails as a free one would.
    return endStep(context, record, run, { ...started, price: 0 }, refusedStep(refusal), values);
  }
  if (started.price > 0) return executeCallingStep(context, record, run, started, values);
  const outcome = await attemptStep(context, run, started);
  if (outcome.kind === 'succeeded' || outcome.kind === 'failed') {
    return endStep(context, record, run, started, outcome, values);
  }
  await parkRun(context, record, run, started, outcome);
  return 'stop';
}

/** A look at a waiting for_each or call that finds its runs under way: at most this long apart. */
const CHILDREN_LOOK_MS = 30_000;

/**
 * A control step (decision 165): if, switch, set and stop decide at once and are free; a
 * for_each or a call_workflow starts runs and the run waits for them in the scheduler table,
 * looked at again when one of them ends.
 */
async function executeControlStep(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  step: RunStepRow,
  values: RunValues,
  cancellation: AbortSignal,
): Promise<StepEnd> {
  const startedAt = step.startedAt ?? context.clock.now();
  const started = (input: unknown): StartedStep => ({
    step,
    input,
    shownInput: input,
    secrets: [],
    startedAt,
    price: 0,
    policy: storedPolicyOf(step.policy),
    attempts: [],
    cancellation,
  });
  if (step.type === 'for_each' || step.type === 'call_workflow') {
    // Iterations read the steps before their loop from the table: those are written first.
    await record.flush();
    const advance = step.type === 'for_each' ? advanceLoop : advanceCall;
    const outcome: ChildOutcome = await advance(context, run, step, values);
    if (outcome.kind === 'wait_children') {
      await waitForChildren(context, record, run, started(outcome.input));
      return 'stop';
    }
    const ended =
      outcome.kind === 'succeeded'
        ? { kind: 'succeeded' as const, output: outcome.output }
        : refusedStep(outcome.error);
    return endStep(context, record, run, started(outcome.input), ended, values);
  }
  const decision = decideControlStep(step, values);
  if (decision.kind === 'stop') {
    const error = decision.message ?? `Stopped by step "${step.name}"`;
    const failed = decision.status === 'failed';
    record.endFreeStep({
      stepIndex: step.stepIndex,
      status: failed ? 'failed' : 'succeeded',
      input: decision.input,
      output: { status: decision.status, message: decision.message },
      error: failed ? error : null,
      startedAt,
      finishedAt: context.clock.now(),
    });
    await record.finish(decision.status, failed ? error : null);
    return 'stop';
  }
  const ended =
    decision.kind === 'succeeded'
      ? { kind: 'succeeded' as const, output: decision.output }
      : refusedStep(decision.error);
  return endStep(context, record, run, started(decision.input), ended, values);
}

/**
 * The run waits for its iterations or its called run: back to the table, due when one of them
 * ends (or after CHILDREN_LOOK_MS in case that wake was lost).
 */
async function waitForChildren(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  { step, shownInput, startedAt }: StartedStep,
): Promise<void> {
  await record.flush();
  if (step.status === 'pending') {
    await context.runs.startStep(run.id, step.stepIndex, { input: shownInput, startedAt });
  }
  await context.runs.releaseWaiting({
    run,
    owner: context.owner,
    fallback: new Date(context.clock.now().getTime() + CHILDREN_LOOK_MS),
  });
}

/**
 * A step that calls out (every paid one), attempt by attempt as its `retry` says. Each attempt's
 * number is on record before it is sent and the wait before the next is a wake time in the
 * scheduler table, like a delay's: a runner that dies during an attempt has it made again
 * (`resumed`, the same idempotency key), one that dies during the wait has the next attempt made
 * at its time, once.
 */
async function executeCallingStep(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  started: StartedStep,
  values: RunValues,
): Promise<StepEnd> {
  const { runs, clock, owner } = context;
  const { step, attempts, policy } = started;
  await record.flush();
  const resumed = step.attempt > attempts.length;
  const number = resumed ? step.attempt : attempts.length + 1;
  await runs.startStep(run.id, step.stepIndex, {
    input: started.shownInput,
    startedAt: started.startedAt,
    attempt: { number, resumed },
  });
  step.startedAt = started.startedAt;
  if (step.creditsCharged === 0 && !(await chargeStep(context, record, run, started))) {
    return 'stop';
  }
  const attemptStartedAt = clock.now();
  const outcome = await attemptStep(context, run, started);
  if (outcome.kind !== 'succeeded' && outcome.kind !== 'failed') {
    await parkRun(context, record, run, started, outcome);
    return 'stop';
  }
  const finishedAt = clock.now();
  const failed = outcome.kind === 'failed' ? outcome : undefined;
  const ended: StoredAttempt = {
    number,
    startedAt: attemptStartedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: Math.max(0, finishedAt.getTime() - attemptStartedAt.getTime()),
    error: failed ? toJsonbStorable(failed.error) : null,
    failure: failed?.failure ?? null,
    resumed,
    mayHaveLeft: resumed || failed?.refundable !== true,
  };
  const allAttempts = [...attempts, ended];
  const retry = failed && !failed.cancelled ? retryAfter(policy, number, failed) : undefined;
  if (failed && retry) {
    const wait = retryDelayMs(retry, number, failed);
    const at = new Date(finishedAt.getTime() + wait);
    await runs.scheduleStepRetry({ id: run.id, owner }, step.stepIndex, allAttempts, at);
    context.logger.info(
      { runId: run.id, stepIndex: step.stepIndex, attempt: number, failure: failed.failure, wait },
      'step attempt failed; retrying after the wait',
    );
    return 'stop';
  }
  return endStep(context, record, run, { ...started, attempts: allAttempts }, outcome, values);
}

/** One attempt at the step, in its own span; what it brought back has no credential in it. */
async function attemptStep(
  context: RunExecutionContext,
  run: RunRow,
  started: StartedStep,
): Promise<StepOutcome> {
  const { step } = started;
  return runInSpan(
    `workflow step ${step.type}`,
    { attributes: { 'wap.step.index': step.stepIndex, 'wap.step.name': step.name } },
    async (span) => {
      const stepOutcome = await context.steps.execute(step.type as ActionStepType, started.input, {
        workspaceId: run.workspaceId,
        actingUserId: run.actingUserId,
        startedAt: started.startedAt,
        now: context.clock.now(),
        timeoutMs: started.policy.timeoutMs,
        idempotencyKey: stepIdempotencyKey(run.id, step.stepIndex),
        signal: started.cancellation,
      });
      const kept =
        stepOutcome.kind === 'succeeded' || stepOutcome.kind === 'failed'
          ? withoutSecrets(stepOutcome, started.secrets)
          : stepOutcome;
      if (kept.kind === 'failed') markSpanFailed(span, kept.error);
      return kept;
    },
  );
}

/**
 * The step's settings filled to be sent, and as its history shows them (credentials as
 * placeholders). An expression that fails leaves them unfilled and says why.
 */
function filledSettings(
  step: RunStepRow,
  scope: Omit<TemplateScope, 'credentials'>,
  credentials: {
    values: ReadonlyMap<string, string> | undefined;
    placeholders: ReadonlyMap<string, string>;
  },
): { input: unknown; shownInput: unknown; error?: string } {
  try {
    return {
      input: resolveTemplates(step.settings, { ...scope, credentials: credentials.values }),
      shownInput: shownInputOf(
        step.type,
        resolveTemplates(step.settings, { ...scope, credentials: credentials.placeholders }),
      ),
    };
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return {
      input: step.settings,
      shownInput: shownInputOf(step.type, step.settings),
      error: `An expression failed: ${error.message}`,
    };
  }
}

function refusedStep(error: string): Extract<StepOutcome, { kind: 'failed' }> {
  return { kind: 'failed', error, refundable: true };
}

/** What the run's history shows of a step's input: an http_request's credentials redacted. */
function shownInputOf(type: string, input: unknown): unknown {
  if (type !== 'http_request' || typeof input !== 'object' || input === null) return input;
  const { headers } = input as { headers?: unknown };
  if (typeof headers !== 'object' || headers === null) return input;
  return { ...input, headers: redactCredentialHeaders(headers as Record<string, string>) };
}

/** Charges a paid step once; false when the workspace could not pay, which ends the run. */
async function chargeStep(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  { step, price }: StartedStep,
): Promise<boolean> {
  const charge = await context.ledger.chargeStep({
    workspaceId: run.workspaceId,
    runId: run.id,
    stepIndex: step.stepIndex,
    amount: price,
    reason: `run ${run.id} step ${step.stepIndex + 1} (${step.type})`,
  });
  if (!charge.charged) {
    await context.runs.endStep(run.id, step, {
      status: 'failed',
      output: null,
      error: CREDIT_MESSAGES.insufficient,
    });
    await record.finish('failed', CREDIT_MESSAGES.insufficient);
    return false;
  }
  await context.runs.setStepCharge(run.id, step.stepIndex, price);
  await context.snapshots.publish(run.workspaceId);
  return true;
}

/**
 * Records a step that succeeded or failed (after its retries); a failure then goes where the
 * step's `onFailure` (or the workflow's `stopOnNodeFailure`) says.
 */
async function endStep(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  { step, shownInput, startedAt, price, policy, attempts }: StartedStep,
  outcome: Extract<StepOutcome, { kind: 'succeeded' | 'failed' }>,
  values: RunValues,
): Promise<StepEnd> {
  const paid = price > 0;
  const route = failureRouteOf(policy, run.stopOnNodeFailure);
  // What a step brings back comes from outside (a response, a tool): a NUL in it must not make
  // the run's writes fail.
  const brought = toJsonbStorable(
    outcome.kind === 'succeeded' ? outcome.output : (outcome.output ?? null),
  );
  const error = outcome.kind === 'failed' ? toJsonbStorable(outcome.error) : null;
  const output =
    outcome.kind === 'failed' && !outcome.cancelled && route.action === 'continue'
      ? { error, output: brought }
      : brought;
  // A charge is given back only when no attempt may have reached the other side.
  const refundable = attempts.every((attempt) => !attempt.mayHaveLeft);
  if (paid && outcome.kind === 'failed' && refundable) {
    await context.runs.failStepWithRefund(
      run,
      step,
      { output, error: error ?? '', attempts },
      {
        entryId: context.ids.uuid(),
        amount: price,
        reason: `refund of run ${run.id} step ${step.stepIndex + 1} (${step.type}): it failed before anything left the platform`,
      },
    );
    await context.snapshots.publish(run.workspaceId);
  } else if (paid) {
    await context.runs.endStep(run.id, step, { status: outcome.kind, output, error, attempts });
  } else {
    record.endFreeStep({
      stepIndex: step.stepIndex,
      status: outcome.kind,
      input: shownInput,
      output,
      error,
      startedAt,
      finishedAt: context.clock.now(),
    });
  }
  // The rows after it read what it came to: the branch an if took, a set's values.
  step.status = outcome.kind;
  step.output = output;
  remember(values, step, outcome.kind, output);
  if (outcome.kind === 'failed' && outcome.cancelled) {
    await record.finish('cancelled', RUN_CANCELLED);
    return 'stop';
  }
  if (outcome.kind === 'failed' && routeStopsRun(route)) {
    await stopAtFailure(context, record, run, step, outcome.error);
    return 'stop';
  }
  return 'next';
}

function stopsRun(run: RunRow, step: RunStepRow): boolean {
  if (step.type === 'stop') return true;
  return routeStopsRun(failureRouteOf(storedPolicyOf(step.policy), run.stopOnNodeFailure));
}

/** Ends the run at a failed step, first starting the failure workflow the step names. */
async function stopAtFailure(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  step: RunStepRow,
  error: string,
): Promise<void> {
  // A stop step's message is the run's error, as its author wrote it.
  if (step.type === 'stop') {
    await record.finish('failed', error);
    return;
  }
  const route = failureRouteOf(storedPolicyOf(step.policy), run.stopOnNodeFailure);
  if (route.action === 'run_workflow') {
    await startFailureWorkflow(context, { run, step, error, workflowId: route.workflowId });
  }
  await record.finish('failed', `Step "${step.name}" failed: ${error}`);
}

/** A step that waits (a delay, an approval): the run goes back to the table until then. */
async function parkRun(
  context: RunExecutionContext,
  record: RunRecord,
  run: RunRow,
  { step, shownInput, startedAt, price }: StartedStep,
  outcome: Extract<StepOutcome, { kind: 'wait_until' | 'wait_approval' }>,
): Promise<void> {
  const { runs, owner } = context;
  await record.flush();
  if (price === 0) {
    // The wait counts from this start, also after a resume.
    await runs.startStep(run.id, step.stepIndex, { input: shownInput, startedAt });
  }
  switch (outcome.kind) {
    case 'wait_until':
      await runs.setStepResumeAt(run.id, step.stepIndex, outcome.at);
      await runs.release(run.id, owner, outcome.at);
      return;
    case 'wait_approval':
      await runs.awaitApproval(run, step.stepIndex, {
        id: context.ids.uuid(),
        reviewerIds: outcome.reviewerIds,
        message: outcome.message,
      });
      await runs.release(run.id, owner, null);
      return;
    default:
      assertNever(outcome);
  }
}

function assertNever(value: never): never {
  throw new Error(`unexpected outcome ${JSON.stringify(value)}`);
}
