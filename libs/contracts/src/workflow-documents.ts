import { z } from 'zod';
import { WorkspaceIdParams } from './directory';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';
import { CreateWorkflowBody, WorkflowIdParams, WorkflowWithWebhook } from './workflows';

/**
 * Workflows as one JSON document (issue 43 item 5, decision 164), to move them to another
 * workspace or keep them in version control: each entry is what `POST /workflows` takes, less
 * the workspace, so an import is checked by the same schemas as a save.
 */

/** The most workflows one document carries. */
export const MAX_DOCUMENT_WORKFLOWS = 100;

export const DocumentWorkflow = CreateWorkflowBody.omit({ workspaceId: true }).extend({
  /**
   * The workflow's id where it was exported: a step's `onFailure.workflowId` naming another
   * entry's `ref` is pointed at that entry's new workflow on import.
   */
  ref: z.uuid(),
});
export type DocumentWorkflow = z.infer<typeof DocumentWorkflow>;

export const WorkflowDocument = z
  .object({
    format: z.literal('wap.workflows'),
    version: z.literal(1),
    exported_at: z.iso.datetime(),
    workflows: z.array(DocumentWorkflow).min(1).max(MAX_DOCUMENT_WORKFLOWS),
  })
  .refine(
    (document) =>
      new Set(document.workflows.map((entry) => entry.ref)).size === document.workflows.length,
    { message: 'each ref appears once', path: ['workflows'] },
  );
export type WorkflowDocument = z.infer<typeof WorkflowDocument>;

export const ImportWorkflowsBody = z.object({ workspaceId: z.uuid(), document: WorkflowDocument });
export const ImportedWorkflowsResponse = z.object({
  /** In the document's order, each a draft with a new id and webhook address. */
  workflows: z.array(WorkflowWithWebhook),
});

const notFound = { description: 'Not found, or not a member', schema: ErrorBodySchema };

export const workflowDocumentRoutes = defineRoutes([
  {
    operationId: 'export_workflow',
    summary: 'A workflow as a document another workspace can import (members)',
    method: 'GET',
    path: '/workflows/:id/export',
    owner: 'workflow-runner',
    subject: 'workflow.api.export_workflow.v2',
    previousSubject: 'workflow.api.export_workflow.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'The document', schema: WorkflowDocument },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'export_workspace_workflows',
    summary: 'Every workflow of a workspace as one document (members; at most 100)',
    method: 'GET',
    path: '/workspaces/:workspaceId/workflows/export',
    owner: 'workflow-runner',
    subject: 'workflow.api.export_workspace_workflows.v2',
    previousSubject: 'workflow.api.export_workspace_workflows.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The document', schema: WorkflowDocument },
      ...sessionErrorResponses,
      404: notFound,
      409: {
        description: 'Nothing to export, or more workflows than a document holds',
        schema: ErrorBodySchema,
      },
    },
  },
  {
    operationId: 'import_workflows',
    summary: 'Creates the workflows of a document in a workspace, as drafts with new ids (members)',
    method: 'POST',
    path: '/workflows/import',
    owner: 'workflow-runner',
    subject: 'workflow.api.import_workflows.v2',
    previousSubject: 'workflow.api.import_workflows.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: ImportWorkflowsBody },
    responses: {
      201: { description: 'The workflows created', schema: ImportedWorkflowsResponse },
      400: { description: 'VALIDATION_ERROR, each problem named', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      404: { description: 'Workspace not found, or not a member', schema: ErrorBodySchema },
    },
  },
]);
