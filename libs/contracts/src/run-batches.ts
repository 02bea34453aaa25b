import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';
import { RunFilter, WorkflowIdParams } from './workflows';

/**
 * Runs replayed or cancelled many at a time (issue 42 items 2 and 3, decision 159): a batch is
 * chosen once by a filter, then worked through at a pace by whichever runner leases it.
 */

/** A batch holds at most this many runs (or test events). */
export const MAX_RUN_BATCH = 1_000;

const batchLimit = z.number().int().min(1).max(MAX_RUN_BATCH).default(MAX_RUN_BATCH);
/**
 * A key of the caller's: a request sent again with the same key (a timeout, a retry) answers
 * the batch the first one made instead of a second batch.
 */
const requestKey = z.string().min(1).max(200).optional();

export const ReplayRunsBody = z.object({
  /**
   * `runs`: ended runs the filter keeps, each retried (as `POST /runs/{runId}/retry` would) from
   * `from`; `test_events`: the workflow's test events received in the filter's time range, each
   * run as it is now (as Run on a test event).
   */
  source: z.enum(['runs', 'test_events']).default('runs'),
  filter: RunFilter.default({}),
  from: z.enum(['failed_step', 'start']).default('failed_step'),
  limit: batchLimit,
  key: requestKey,
});
export type ReplayRunsBody = z.infer<typeof ReplayRunsBody>;

export const CancelRunsBody = z.object({
  /** Runs not ended that the filter keeps; a status that has ended keeps none (400). */
  filter: RunFilter.default({}),
  limit: batchLimit,
  key: requestKey,
});
export type CancelRunsBody = z.infer<typeof CancelRunsBody>;

export const RunBatchKind = z.enum(['replay', 'cancel']);
export const RunBatchStatus = z.enum(['running', 'succeeded', 'failed', 'cancelled']);
/**
 * What became of one run (or test event) of a batch: `started` (its replay was created),
 * `cancelled` (ended by the batch), `cancel_requested` (its runner was told to stop its step),
 * `already_ended`, `failed` (`error` says why), `skipped` (the batch stopped before it).
 */
export const RunBatchItemStatus = z.enum([
  'pending',
  'started',
  'cancelled',
  'cancel_requested',
  'already_ended',
  'failed',
  'skipped',
]);
export type RunBatchItemStatus = z.infer<typeof RunBatchItemStatus>;

export const RunBatchItem = z.object({
  /** The run (or test event) the batch chose. */
  source_id: z.uuid(),
  status: RunBatchItemStatus,
  /** The run a replay started. */
  run_id: z.uuid().nullable(),
  error: z.string().nullable(),
});

export const RunBatch = z.object({
  id: z.uuid(),
  workflow_id: z.uuid(),
  workspace_id: z.uuid(),
  kind: RunBatchKind,
  source: z.enum(['runs', 'test_events']),
  filter: RunFilter,
  from: z.enum(['failed_step', 'start']).nullable(),
  status: RunBatchStatus,
  error: z.string().nullable(),
  /** How many the filter chose (at most the request's limit). */
  total: z.number().int().min(0),
  /** More matched than the limit let the batch take. */
  more_matched: z.boolean(),
  /** How many items are in each state. */
  progress: z.object({
    pending: z.number().int().min(0),
    started: z.number().int().min(0),
    cancelled: z.number().int().min(0),
    cancel_requested: z.number().int().min(0),
    already_ended: z.number().int().min(0),
    failed: z.number().int().min(0),
    skipped: z.number().int().min(0),
  }),
  requested_by: z.uuid(),
  created_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
});
export type RunBatch = z.infer<typeof RunBatch>;

export const RunBatchResponse = z.object({ batch: RunBatch });
export const RunBatchDetailsResponse = z.object({
  batch: RunBatch,
  items: z.array(RunBatchItem),
});
export const RunBatchListResponse = z.object({ batches: z.array(RunBatch) });
export const RunBatchIdParams = z.object({ batchId: z.uuid() });
/** The newest batches a workflow's list shows. */
export const RUN_BATCH_LIST_SIZE = 20;

const mayRun = {
  description: 'The workspace does not let the caller run this workflow',
  schema: ErrorBodySchema,
};
const notFound = { description: 'Not found, or not a member', schema: ErrorBodySchema };
const badBody = { description: 'VALIDATION_ERROR', schema: ErrorBodySchema };

export const runBatchRoutes = defineRoutes([
  {
    operationId: 'replay_runs',
    summary: "Replay up to 1,000 of a workflow's ended runs (or test events) chosen by a filter",
    description:
      'Answers 202 with the batch; it is worked through at a pace, and GET /run-batches/{batchId} shows its progress (decision 159).',
    method: 'POST',
    path: '/workflows/:id/runs/replay',
    owner: 'workflow-runner',
    subject: 'workflow.api.replay_runs.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdParams, body: ReplayRunsBody },
    responses: {
      200: {
        description: 'The batch an earlier request with this key made',
        schema: RunBatchResponse,
      },
      202: { description: 'The batch, started', schema: RunBatchResponse },
      400: badBody,
      ...sessionErrorResponses,
      402: { description: 'The credit balance is empty', schema: ErrorBodySchema },
      403: mayRun,
      404: notFound,
    },
  },
  {
    operationId: 'cancel_runs',
    summary: "Cancel up to 1,000 of a workflow's runs not ended, chosen by a filter",
    method: 'POST',
    path: '/workflows/:id/runs/cancel',
    owner: 'workflow-runner',
    subject: 'workflow.api.cancel_runs.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdParams, body: CancelRunsBody },
    responses: {
      200: {
        description: 'The batch an earlier request with this key made',
        schema: RunBatchResponse,
      },
      202: { description: 'The batch, started', schema: RunBatchResponse },
      400: badBody,
      ...sessionErrorResponses,
      403: mayRun,
      404: notFound,
    },
  },
  {
    operationId: 'list_run_batches',
    summary: "A workflow's newest replays and bulk cancels",
    method: 'GET',
    path: '/workflows/:id/run-batches',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_run_batches.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'The newest 20 batches', schema: RunBatchListResponse },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'get_run_batch',
    summary: 'A replay or bulk cancel: its progress and what became of each run',
    method: 'GET',
    path: '/run-batches/:batchId',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_run_batch.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: RunBatchIdParams },
    responses: {
      200: { description: 'The batch and its items', schema: RunBatchDetailsResponse },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'cancel_run_batch',
    summary: 'Stop a replay or bulk cancel: what it has not reached is skipped',
    method: 'POST',
    path: '/run-batches/:batchId/cancel',
    owner: 'workflow-runner',
    subject: 'workflow.api.cancel_run_batch.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: RunBatchIdParams },
    responses: {
      200: {
        description: 'The batch as it stopped (or as it had ended)',
        schema: RunBatchResponse,
      },
      ...sessionErrorResponses,
      403: mayRun,
      404: notFound,
    },
  },
]);
