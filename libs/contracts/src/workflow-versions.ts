import { z } from 'zod';
import { CustomResponse, RunningHours } from './automation';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { ProviderEventsTrigger } from './provider-events';
import { defineRoutes } from './route-spec';
import { Step, WorkflowIdParams, WorkflowWithWebhook } from './workflows';

/**
 * Workflow versions (issue 43 item 4, decision 163): every save that changes what a workflow
 * does is a new, immutable version; runs record the version they ran; live traffic runs the
 * version Set live published while the editor works on newer ones.
 */

/** What a version holds: everything that decides what a run of it does. */
export const WorkflowDefinition = z.object({
  name: z.string(),
  /** Whether it has its Custom Webhook trigger (the address itself is the workflow's, not the version's). */
  hasTrigger: z.boolean(),
  customResponse: CustomResponse.nullable(),
  providerEvents: ProviderEventsTrigger.nullable(),
  steps: z.array(Step),
  runningHours: RunningHours.nullable(),
  queueOutsideWindow: z.boolean(),
  stopOnNodeFailure: z.boolean(),
});
export type WorkflowDefinition = z.infer<typeof WorkflowDefinition>;

export const WorkflowVersionSummary = z.object({
  number: z.number().int().min(1),
  author_id: z.uuid(),
  created_at: z.iso.datetime(),
  /** What differs from the version before it, as a person reads it. */
  changes: z.array(z.string()),
  /** The version this one restored, or null. */
  restored_from: z.number().int().min(1).nullable(),
  /** Live traffic runs this version. */
  live: z.boolean(),
});
export type WorkflowVersionSummary = z.infer<typeof WorkflowVersionSummary>;
export const WorkflowVersion = WorkflowVersionSummary.extend({
  credit_cost: z.number().int().nonnegative(),
  definition: WorkflowDefinition,
});
export type WorkflowVersion = z.infer<typeof WorkflowVersion>;

/** Versions a history page shows. */
export const VERSIONS_PAGE = 50;
export const WorkflowVersionListResponse = z.object({
  versions: z.array(WorkflowVersionSummary),
  /** Pass as `before` for older versions; null on the last page. */
  nextBefore: z.number().int().min(1).nullable(),
});
/** A version number as a path or query part carries it: digits, from 1. */
const VersionNumberText = z.string().regex(/^[1-9][0-9]{0,8}$/, 'a version number: 1 or more');
export const ListWorkflowVersionsQuery = z.object({
  /** Versions older than this one (a page's `nextBefore`). */
  before: VersionNumberText.optional(),
});
export const WorkflowVersionParams = WorkflowIdParams.extend({ number: VersionNumberText });
export const WorkflowVersionResponse = z.object({ version: WorkflowVersion });
export const VersionDiffQuery = z.object({
  /** The version compared with: the one before by default. */
  against: VersionNumberText.optional(),
});
/** One difference between two versions: the path in their definitions, and each side's value. */
export const VersionDifference = z.object({
  path: z.string(),
  before: z.unknown(),
  after: z.unknown(),
});
export const VersionDiffResponse = z.object({
  from: z.number().int().min(1),
  to: z.number().int().min(1),
  differences: z.array(VersionDifference),
});

const notFound = {
  description: 'No such workflow or version, or not a member',
  schema: ErrorBodySchema,
};

export const workflowVersionRoutes = defineRoutes([
  {
    operationId: 'list_workflow_versions',
    summary: "A workflow's versions, newest first (members)",
    method: 'GET',
    path: '/workflows/:id/versions',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_workflow_versions.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams, query: ListWorkflowVersionsQuery },
    responses: {
      200: { description: 'The versions', schema: WorkflowVersionListResponse },
      400: { description: 'VALIDATION_ERROR', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'get_workflow_version',
    summary: 'One version of a workflow, with its definition (members)',
    method: 'GET',
    path: '/workflows/:id/versions/:number',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_workflow_version.v2',
    previousSubject: 'workflow.api.get_workflow_version.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowVersionParams },
    responses: {
      200: { description: 'The version', schema: WorkflowVersionResponse },
      400: { description: 'VALIDATION_ERROR', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'diff_workflow_versions',
    summary: 'What differs between a version and another (the one before it by default)',
    method: 'GET',
    path: '/workflows/:id/versions/:number/diff',
    owner: 'workflow-runner',
    subject: 'workflow.api.diff_workflow_versions.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowVersionParams, query: VersionDiffQuery },
    responses: {
      200: { description: 'The differences', schema: VersionDiffResponse },
      400: { description: 'VALIDATION_ERROR', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'restore_workflow_version',
    summary: 'Make a version the newest again, as a new version (editors)',
    description:
      'The workflow takes the definition of that version as a new version; a live workflow goes on running its published version until Set live publishes this one.',
    method: 'POST',
    path: '/workflows/:id/versions/:number/restore',
    owner: 'workflow-runner',
    subject: 'workflow.api.restore_workflow_version.v2',
    previousSubject: 'workflow.api.restore_workflow_version.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowVersionParams },
    responses: {
      200: { description: 'The workflow, at its new version', schema: WorkflowWithWebhook },
      400: { description: 'VALIDATION_ERROR', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      403: {
        description: 'The workspace does not let the caller edit it',
        schema: ErrorBodySchema,
      },
      404: notFound,
    },
  },
]);
