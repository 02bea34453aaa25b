import type { Logger } from 'pino';
import {
  AppError,
  CancelRunsBody,
  FINAL_RUN_STATUSES,
  isFinalRunStatus,
  ReplayRunsBody,
  RUN_BATCH_LIST_SIZE,
  RunBatchIdParams,
  RunStatus,
  WorkflowIdParams,
  type RunBatch,
  type RunFilter,
} from '@wap/contracts';
import type { IdSource } from '@wap/platform';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { WorkflowAuthority } from '../workflows/permissions';
import type { WorkflowRepository, WorkflowRow } from '../workflows/repository';
import type { RunBatchRepository, RunBatchRow } from './repository';

const UNFINISHED_RUN_STATUSES = RunStatus.options.filter((status) => !isFinalRunStatus(status));

interface RunBatchDeps {
  batches: RunBatchRepository;
  workflows: Pick<WorkflowRepository, 'find'>;
  authority: WorkflowAuthority;
  directory: DirectoryClient;
  ids: IdSource;
  logger: Logger;
  /** A new batch is started at once rather than at the next pass. */
  onBatchCreated: () => void;
}

export async function toRunBatches(
  batches: Pick<RunBatchRepository, 'progressOf'>,
  rows: readonly RunBatchRow[],
): Promise<RunBatch[]> {
  const progress = await batches.progressOf(rows.map((row) => row.id));
  return rows.map((row) => ({
    id: row.id,
    workflow_id: row.workflowId,
    workspace_id: row.workspaceId,
    kind: row.kind as RunBatch['kind'],
    source: row.source as RunBatch['source'],
    filter: row.filter as RunFilter,
    from: row.retryFrom as RunBatch['from'],
    status: row.status as RunBatch['status'],
    error: row.error,
    total: row.total,
    more_matched: row.moreMatched,
    progress: progress.get(row.id) ?? {
      pending: 0,
      started: 0,
      cancelled: 0,
      cancel_requested: 0,
      already_ended: 0,
      failed: 0,
      skipped: 0,
    },
    requested_by: row.requestedBy,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  }));
}

const invalidBody = (message: string, path: string) =>
  new AppError('VALIDATION_ERROR', message, { details: [{ path: [path], message }] });

/** The filter fits what the batch acts on: ended runs to replay, unfinished ones to cancel. */
function checkedFilter(kind: 'replay' | 'cancel', source: string, filter: RunFilter): void {
  if (kind === 'replay' && source === 'test_events') {
    if (filter.status || filter.trigger || filter.event_id) {
      throw invalidBody(
        'Test events are chosen by created_after and created_before only',
        'filter',
      );
    }
    return;
  }
  if (!filter.status) return;
  if (kind === 'replay' && !isFinalRunStatus(filter.status)) {
    throw invalidBody(
      'Only runs that ended are replayed: succeeded, failed or cancelled',
      'filter',
    );
  }
  if (kind === 'cancel' && isFinalRunStatus(filter.status)) {
    throw invalidBody(
      'Only runs that have not ended are cancelled: queued, running or waiting_approval',
      'filter',
    );
  }
}

async function memberWorkflow(
  deps: RunBatchDeps,
  workflowId: string,
  userId: string,
): Promise<WorkflowRow> {
  const workflow = await deps.workflows.find(workflowId);
  if (
    !workflow ||
    (await deps.directory.confirmedRoleOf(workflow.workspaceId, userId)) === undefined
  ) {
    throw new AppError('NOT_FOUND', 'Workflow not found');
  }
  return workflow;
}

async function memberBatch(
  deps: RunBatchDeps,
  batchId: string,
  userId: string,
): Promise<RunBatchRow> {
  const batch = await deps.batches.find(batchId);
  if (!batch || (await deps.directory.confirmedRoleOf(batch.workspaceId, userId)) === undefined) {
    throw new AppError('NOT_FOUND', 'Run batch not found');
  }
  return batch;
}

/** A replay or bulk cancel asked for: 202 with the new batch, 200 with an earlier one's. */
function batchCreation(deps: RunBatchDeps, kind: 'replay' | 'cancel'): RouteHandler {
  return async (request) => {
    const actor = actorOf(request);
    const { id } = parseRequestPart(WorkflowIdParams, request.params);
    const body =
      kind === 'replay'
        ? parseRequestPart(ReplayRunsBody, request.body ?? {})
        : { ...parseRequestPart(CancelRunsBody, request.body ?? {}), source: 'runs' as const };
    const workflow = await memberWorkflow(deps, id, actor.userId);
    await deps.authority.authorizePerson(workflow, actor.userId, ['run']);
    checkedFilter(kind, body.source, body.filter);
    const { row, created } = await deps.batches.create(
      {
        id: deps.ids.uuid(),
        workflowId: workflow.id,
        workspaceId: workflow.workspaceId,
        kind,
        source: body.source,
        filter: body.filter,
        retryFrom: 'from' in body ? body.from : null,
        requestedBy: actor.userId,
        requestKey: body.key ?? null,
      },
      kind === 'replay' ? FINAL_RUN_STATUSES : UNFINISHED_RUN_STATUSES,
      body.limit,
    );
    if (created) {
      deps.logger.info(
        { batchId: row.id, kind, workflowId: workflow.id, total: row.total, userId: actor.userId },
        'run batch created',
      );
      deps.onBatchCreated();
    }
    const [batch] = await toRunBatches(deps.batches, [row]);
    return { status: created ? 202 : 200, body: { batch } };
  };
}

/**
 * Replays and bulk cancels (decision 159), for whoever may run the workflow (decision 147's
 * `run`); a batch is read by every member of its workspace, as runs are.
 */
export function runBatchHandlers(
  deps: RunBatchDeps,
): Record<
  'replay_runs' | 'cancel_runs' | 'list_run_batches' | 'get_run_batch' | 'cancel_run_batch',
  RouteHandler
> {
  const { batches } = deps;
  return {
    replay_runs: batchCreation(deps, 'replay'),
    cancel_runs: batchCreation(deps, 'cancel'),

    async list_run_batches(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(WorkflowIdParams, request.params);
      const workflow = await memberWorkflow(deps, id, actor.userId);
      const rows = await batches.listOfWorkflow(workflow.id, RUN_BATCH_LIST_SIZE);
      return { status: 200, body: { batches: await toRunBatches(batches, rows) } };
    },

    async get_run_batch(request) {
      const actor = actorOf(request);
      const { batchId } = parseRequestPart(RunBatchIdParams, request.params);
      const row = await memberBatch(deps, batchId, actor.userId);
      const [batch] = await toRunBatches(batches, [row]);
      const items = (await batches.itemsOf(row.id)).map((item) => ({
        source_id: item.sourceId,
        status: item.status,
        run_id: item.runId,
        error: item.error,
      }));
      return { status: 200, body: { batch, items } };
    },

    async cancel_run_batch(request) {
      const actor = actorOf(request);
      const { batchId } = parseRequestPart(RunBatchIdParams, request.params);
      const row = await memberBatch(deps, batchId, actor.userId);
      const workflow = await deps.workflows.find(row.workflowId);
      if (workflow) await deps.authority.authorizePerson(workflow, actor.userId, ['run']);
      if (await batches.finish(row.id, 'cancelled')) {
        deps.logger.info({ batchId, userId: actor.userId }, 'run batch cancelled');
      }
      const [batch] = await toRunBatches(batches, [(await batches.find(row.id)) ?? row]);
      return { status: 200, body: { batch } };
    },
  };
}
