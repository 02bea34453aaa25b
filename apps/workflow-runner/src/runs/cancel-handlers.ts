import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import {
  AppError,
  FINAL_RUN_STATUSES,
  RunIdParams,
  RunCancelRequested,
  WORKFLOW_SUBJECTS,
} from '@wap/contracts';
import { decodeJson, encodeJson, type Bus, type KvBucket, type Subscription } from '@wap/platform';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { WorkflowAuthority } from '../workflows/permissions';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunExecutor } from './executor';
import type { RunRepository } from './repository';
import { toRun } from './run-api';
import type { RunRow } from './run-rows';

/** How long a cancel waits for the runner that executes the run to stop it. */
const CANCEL_WAIT_MS = 10_000;
/** How often it looks whether the run has ended meanwhile. */
const CANCEL_POLL_MS = 100;
/** How often it tries again to cancel the run itself (its runner may have died). */
const IDLE_RETRY_MS = 1_000;

const isFinal = (run: RunRow) => (FINAL_RUN_STATUSES as readonly string[]).includes(run.status);

/**
 * `POST /runs/{runId}/cancel` (issue 42 item 3, decision 156). A run no runner executes is
 * cancelled at once; one being executed is marked and every runner told over the bus: the one
 * running it stops its step (an http_request aborted, a tool call cancelled) and ends it
 * cancelled. The answer is the run once it ended: cancelled, or whatever it ended as first.
 */
export function cancelHandlers(deps: {
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'find'>;
  authority: WorkflowAuthority;
  directory: DirectoryClient;
  inflight: KvBucket;
  bus: Bus;
  logger: Logger;
}): Record<'cancel_run', RouteHandler> {
  const { runs } = deps;

  async function cancellable(runId: string, userId: string): Promise<RunRow> {
    const found = await runs.get(runId);
    if (
      !found ||
      (await deps.directory.confirmedRoleOf(found.run.workspaceId, userId)) === undefined
    ) {
      throw new AppError('NOT_FOUND', 'Run not found');
    }
    const workflow = await deps.workflows.find(found.run.workflowId);
    // Who may start runs of the workflow may stop them (decision 147's `run`).
    if (workflow) await deps.authority.authorizePerson(workflow, userId, ['run']);
    return found.run;
  }

  /** Cancels the run if no runner holds it; its in-flight key is then free for a new request. */
  async function cancelIfIdle(runId: string): Promise<boolean> {
    const cancelled = await runs.cancelIdle(runId);
    if (!cancelled) return false;
    if (cancelled.inflightKey) await deps.inflight.delete(cancelled.inflightKey);
    deps.logger.info({ runId }, 'run cancelled');
    return true;
  }

  async function answer(runId: string) {
    const found = await runs.get(runId);
    if (!found) throw new AppError('NOT_FOUND', 'Run not found');
    return { status: 200, body: { run: toRun(found.run, found.steps) } };
  }

  return {
    async cancel_run(request) {
      const actor = actorOf(request);
      const { runId } = parseRequestPart(RunIdParams, request.params);
      const run = await cancellable(runId, actor.userId);
      if (isFinal(run) || (await cancelIfIdle(runId))) return answer(runId);
      if (!(await runs.requestCancel(runId))) return answer(runId);
      const notice: RunCancelRequested = { runId };
      deps.bus.publish(WORKFLOW_SUBJECTS.runCancelRequested, encodeJson(notice));
      deps.logger.info({ runId, userId: actor.userId }, 'run cancel requested');
      for (let polls = 1; polls * CANCEL_POLL_MS <= CANCEL_WAIT_MS; polls += 1) {
        await sleep(CANCEL_POLL_MS);
        const current = await runs.get(runId);
        if (!current || isFinal(current.run)) break;
        if ((polls * CANCEL_POLL_MS) % IDLE_RETRY_MS === 0 && (await cancelIfIdle(runId))) break;
      }
      return answer(runId);
    },
  };
}

/** Every replica hears a cancel: only the one executing the run has a step to stop. */
export function serveRunCancels(deps: {
  bus: Bus;
  executor: Pick<RunExecutor, 'cancelRequested'>;
  logger: Logger;
}): Subscription {
  return deps.bus.subscribe(WORKFLOW_SUBJECTS.runCancelRequested, (message) => {
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
