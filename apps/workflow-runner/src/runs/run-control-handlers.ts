import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  AppError,
  isFinalRunStatus,
  insufficientCreditsReply,
  RetryRunBody,
  RunCancelRequested,
  RUN_CANCEL_REQUESTED_SUBJECT,
  RunIdParams,
} from '@wap/contracts';
import {
  decodeJson,
  encodeJson,
  type Bus,
  type IdSource,
  type KvBucket,
  type Subscription,
} from '@wap/platform';
import { activeTraceparent, actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { CreditLedger } from '../credits/ledger';
import type { WorkflowAuthority } from '../workflows/permissions';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunExecutor } from './executor';
import type { RunRepository } from './repository';
import { toRun } from './run-api';
import { retryEndedRun } from './run-retry';
import type { LoadedRun } from './run-rows';

/** How long a cancel waits for the runner that executes the run to stop it. */
const CANCEL_WAIT_MS = 10_000;
/** How often it looks whether the run has ended meanwhile. */
const CANCEL_POLL_MS = 100;
/** How often it tries again to cancel the run itself (its runner may have died). */
const IDLE_RETRY_MS = 1_000;

interface RunControlDeps {
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'find'>;
  authority: WorkflowAuthority;
  directory: DirectoryClient;
  ledger: Pick<CreditLedger, 'balanceOf'>;
  inflight: KvBucket;
  bus: Bus;
  ids: IdSource;
  logger: Logger;
  onRunCreated: () => void;
}

/**
 * The run and whether its workflow still exists, to a member who may run the workflow: other
 * members get 403, everyone else 404.
 */
async function controlledRun(
  deps: RunControlDeps,
  runId: string,
  userId: string,
): Promise<LoadedRun & { workflowExists: boolean }> {
  const found = await deps.runs.get(runId);
  if (
    !found ||
    (await deps.directory.confirmedRoleOf(found.run.workspaceId, userId)) === undefined
  ) {
    throw new AppError('NOT_FOUND', 'Run not found');
  }
  const workflow = await deps.workflows.find(found.run.workflowId);
  // Who may start runs of the workflow may stop and retry them (decision 147's `run`).
  if (workflow) await deps.authority.authorizePerson(workflow, userId, ['run']);
  return { ...found, workflowExists: workflow !== undefined };
}

async function runAnswer(deps: RunControlDeps, runId: string) {
  const found = await deps.runs.get(runId);
  if (!found) throw new AppError('NOT_FOUND', 'Run not found');
  return { status: 200, body: { run: toRun(found.run, found.steps) } };
}

/**
 * A run's controls (issue 42), for whoever may run its workflow: `POST /runs/{runId}/cancel`
 * (decision 156) and `POST /runs/{runId}/retry` (decision 157).
 */
export function runControlHandlers(
  deps: RunControlDeps,
): Record<'cancel_run' | 'retry_run', RouteHandler> {
  return { cancel_run: cancelRun(deps), retry_run: retryRun(deps) };
}

/**
 * A retry is a new run of the ended one's steps, from its first step that did not succeed or
 * from the start, charged for the steps it runs again.
 */
function retryRun(deps: RunControlDeps): RouteHandler {
  return async (request) => {
    const actor = actorOf(request);
    const { runId } = parseRequestPart(RunIdParams, request.params);
    const body = parseRequestPart(RetryRunBody, request.body ?? undefined);
    const original = await controlledRun(deps, runId, actor.userId);
    if (!original.workflowExists) throw new AppError('NOT_FOUND', 'Workflow not found');
    const from = body?.from ?? 'failed_step';
    const retried = await retryEndedRun(deps, original, {
      from,
      traceparent: activeTraceparent(),
    });
    if ('shortfall' in retried) return insufficientCreditsReply(retried.shortfall);
    deps.logger.info({ runId, retryId: retried.runId, from, userId: actor.userId }, 'run retried');
    return { status: 202, body: { runId: retried.runId } };
  };
}

/** What a cancel did to a run: ended it, told the runner executing it, or found it ended. */
export type RunStopOutcome = 'cancelled' | 'cancel_requested' | 'already_ended';

/**
 * Cancels a run no runner executes at once (its in-flight key is then free for a new request);
 * marks one being executed and tells every runner over the bus: the one running it stops its
 * step (an http_request aborted, a tool call cancelled) and ends it cancelled.
 */
export async function stopRun(
  deps: Pick<RunControlDeps, 'runs' | 'inflight' | 'bus' | 'logger'>,
  runId: string,
): Promise<RunStopOutcome> {
  const cancelled = await deps.runs.cancelIdle(runId);
  if (cancelled) {
    if (cancelled.inflightKey) await deps.inflight.delete(cancelled.inflightKey);
    deps.logger.info({ runId }, 'run cancelled');
    return 'cancelled';
  }
  if (!(await deps.runs.requestCancel(runId))) return 'already_ended';
  const notice: RunCancelRequested = { runId };
  deps.bus.publish(RUN_CANCEL_REQUESTED_SUBJECT, encodeJson(notice));
  deps.logger.info({ runId }, 'run cancel requested');
  return 'cancel_requested';
}

/**
 * Stops the run (see `stopRun`) and answers it once it ended: cancelled, or whatever it ended
 * as first. A runner that died holding it is waited out, then the run is cancelled here.
 */
function cancelRun(deps: RunControlDeps): RouteHandler {
  const { runs } = deps;
  const cancelIfIdle = async (runId: string) => {
    const cancelled = await runs.cancelIdle(runId);
    if (cancelled?.inflightKey) await deps.inflight.delete(cancelled.inflightKey);
    return cancelled !== undefined;
  };

  return async (request) => {
    const actor = actorOf(request);
    const { runId } = parseRequestPart(RunIdParams, request.params);
    const { run } = await controlledRun(deps, runId, actor.userId);
    if (isFinalRunStatus(run.status)) return runAnswer(deps, runId);
    if ((await stopRun(deps, runId)) !== 'cancel_requested') return runAnswer(deps, runId);
    deps.logger.info({ runId, userId: actor.userId }, 'run cancel asked for');
    for (let polls = 1; polls * CANCEL_POLL_MS <= CANCEL_WAIT_MS; polls += 1) {
      await sleep(CANCEL_POLL_MS);
      const current = await runs.get(runId);
      if (!current || isFinalRunStatus(current.run.status)) break;
      if ((polls * CANCEL_POLL_MS) % IDLE_RETRY_MS === 0 && (await cancelIfIdle(runId))) break;
    }
    return runAnswer(deps, runId);
  };
}

/** Every replica hears a cancel: only the one executing the run has a step to stop. */
export function serveRunCancels(deps: {
  bus: Bus;
  executor: Pick<RunExecutor, 'cancelRequested'>;
  logger: Logger;
}): Subscription {
  return deps.bus.subscribe(RUN_CANCEL_REQUESTED_SUBJECT, (message) => {
    const parsed = RunCancelRequested.safeParse(decodeJson(message.data));
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed run cancel');
      return;
    }
    const { runId } = parsed.data;
    deps.executor.cancelRequested(runId).catch((error: unknown) => {
      deps.logger.warn({ err: error, runId }, 'could not stop a cancelled run');
    });
  });
}
