import {
  AppError,
  PutWorkflowPermissionsBody,
  WorkspaceIdParams,
  type WorkflowPermissions,
  type WorkflowPermissionsResponse,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { WorkflowAuthority } from './permissions';

export type WorkflowPermissionOperation = 'get_workflow_permissions' | 'put_workflow_permissions';

function permissionsBody(
  workspaceId: string,
  permissions: WorkflowPermissions,
  updatedAt: Date | null,
): WorkflowPermissionsResponse {
  return { workspace_id: workspaceId, permissions, updated_at: updatedAt?.toISOString() ?? null };
}

/** Who may do what with a workspace's workflows: members read it, its owners change it. */
export function workflowPermissionHandlers(deps: {
  authority: WorkflowAuthority;
  directory: DirectoryClient;
}): Record<WorkflowPermissionOperation, RouteHandler> {
  return {
    async get_workflow_permissions(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      await deps.directory.requireMember(workspaceId, actor.userId);
      const { permissions, updatedAt } = await deps.authority.permissionsOf(workspaceId);
      return { status: 200, body: permissionsBody(workspaceId, permissions, updatedAt) };
    },

    async put_workflow_permissions(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const role = await deps.directory.requireMember(workspaceId, actor.userId);
      if (role !== 'owner') {
        throw new AppError(
          'FORBIDDEN',
          "Only the workspace's owners may change who may do what with its workflows",
        );
      }
      const body = parseRequestPart(PutWorkflowPermissionsBody, request.body);
      const saved = await deps.authority.savePermissions(
        workspaceId,
        body.permissions,
        actor.userId,
      );
      return {
        status: 200,
        body: permissionsBody(workspaceId, saved.permissions, saved.updatedAt),
      };
    },
  };
}
