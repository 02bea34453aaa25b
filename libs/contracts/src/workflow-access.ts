import { z } from 'zod';
import { WorkspaceIdParams } from './directory';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';
import { WorkflowIdParams, WorkflowWithWebhook } from './workflows';

/*
 * Who may do what with a workflow, and whom its runs act as (decision 147). A workflow has an
 * owner (its creator, transferable) and a `runs_as`: the person who last saved what it does
 * (trigger and steps), or who adopted it since. A run uses that person's access, never the
 * owner's unless the owner saved or adopted what runs.
 */

/** What a person does to a workflow; each is allowed by the workspace's permission for it. */
export const WorkflowAction = z.enum([
  'edit',
  'run',
  'publish',
  'schedule',
  'delete',
  'change_approvals',
]);
export type WorkflowAction = z.infer<typeof WorkflowAction>;

/**
 * Who may take an action: every member; the workflow's owner (and the workspace's owners); or
 * the workspace's owners alone.
 */
export const WorkflowPermissionLevel = z.enum(['member', 'workflow_owner', 'workspace_owner']);
export type WorkflowPermissionLevel = z.infer<typeof WorkflowPermissionLevel>;

export const WorkflowPermissions = z.object({
  /** Change name, trigger, steps and settings; adopt (run as oneself). */
  edit: WorkflowPermissionLevel,
  /** The user action Run, and runs started by a workspace API key (a key counts as a member). */
  run: WorkflowPermissionLevel,
  /** Set live and back to draft. */
  publish: WorkflowPermissionLevel,
  /** Create, change or turn off the workflow's schedule. */
  schedule: WorkflowPermissionLevel,
  delete: WorkflowPermissionLevel,
  /** Add, remove or change approval steps (on top of `edit`). */
  change_approvals: WorkflowPermissionLevel,
});
export type WorkflowPermissions = z.infer<typeof WorkflowPermissions>;

/** Every action open to every member: what a workspace had before permissions existed. */
export const DEFAULT_WORKFLOW_PERMISSIONS: WorkflowPermissions = {
  edit: 'member',
  run: 'member',
  publish: 'member',
  schedule: 'member',
  delete: 'member',
  change_approvals: 'member',
};

export const WorkflowPermissionsResponse = z.object({
  workspace_id: z.uuid(),
  permissions: WorkflowPermissions,
  updated_at: z.iso.datetime().nullable(),
});
export type WorkflowPermissionsResponse = z.infer<typeof WorkflowPermissionsResponse>;
/** A PUT names the actions it changes; the others keep their level. */
export const PutWorkflowPermissionsBody = z
  .object({ permissions: WorkflowPermissions.partial() })
  .strict();

export const TransferWorkflowBody = z.object({ ownerId: z.uuid() }).strict();

/** The message of the 403 a person gets for an action their role does not allow. */
export function workflowActionRefusal(action: WorkflowAction, level: WorkflowPermissionLevel) {
  const who =
    level === 'workspace_owner'
      ? "the workspace's owners"
      : "the workflow's owner and the workspace's owners";
  return `Only ${who} may ${ACTION_WORDS[action]} in this workspace`;
}

const ACTION_WORDS: Record<WorkflowAction, string> = {
  edit: 'edit workflows',
  run: 'run workflows',
  publish: 'set workflows live or back to draft',
  schedule: 'schedule workflows',
  delete: 'delete workflows',
  change_approvals: 'change approval steps',
};

const notFound = { description: 'Not found, or not a member', schema: ErrorBodySchema };
const refused = { description: 'FORBIDDEN: the role does not allow it', schema: ErrorBodySchema };

export const workflowAccessRoutes = defineRoutes([
  {
    operationId: 'adopt_workflow',
    summary: 'Runs act as the caller from now on: how an owner accepts what another member changed',
    method: 'POST',
    path: '/workflows/:id/adopt',
    owner: 'workflow-runner',
    subject: 'workflow.api.adopt_workflow.v2',
    previousSubject: 'workflow.api.adopt_workflow.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkflowIdParams },
    responses: {
      200: { description: 'The workflow', schema: WorkflowWithWebhook },
      ...sessionErrorResponses,
      403: refused,
      404: notFound,
    },
  },
  {
    operationId: 'transfer_workflow',
    summary: 'Hand the workflow to another member (its owner or a workspace owner); runs_as stays',
    method: 'PUT',
    path: '/workflows/:id/owner',
    owner: 'workflow-runner',
    subject: 'workflow.api.transfer_workflow.v2',
    previousSubject: 'workflow.api.transfer_workflow.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: WorkflowIdParams, body: TransferWorkflowBody },
    responses: {
      200: { description: 'The workflow', schema: WorkflowWithWebhook },
      400: { description: 'The new owner is not a member', schema: ErrorBodySchema },
      ...sessionErrorResponses,
      403: refused,
      404: notFound,
    },
  },
  {
    operationId: 'get_workflow_permissions',
    summary: "Who may edit, run, publish, schedule and delete the workspace's workflows",
    method: 'GET',
    path: '/workspaces/:workspaceId/workflow-permissions',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_workflow_permissions.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The permissions', schema: WorkflowPermissionsResponse },
      ...sessionErrorResponses,
      404: notFound,
    },
  },
  {
    operationId: 'put_workflow_permissions',
    summary: "Change who may do what with the workspace's workflows (workspace owners only)",
    method: 'PUT',
    path: '/workspaces/:workspaceId/workflow-permissions',
    owner: 'workflow-runner',
    subject: 'workflow.api.put_workflow_permissions.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: PutWorkflowPermissionsBody },
    responses: {
      200: { description: 'The permissions', schema: WorkflowPermissionsResponse },
      ...sessionErrorResponses,
      403: refused,
      404: notFound,
    },
  },
] as const);
