import { eq } from 'drizzle-orm';
import {
  AppError,
  placedSteps,
  DEFAULT_WORKFLOW_PERMISSIONS,
  WorkflowPermissions,
  workflowActionRefusal,
  type Step,
  type WorkflowAction,
  type WorkflowPermissionLevel,
  type WorkspaceRole,
} from '@wap/contracts';
import { canonicalJson, type Clock, type SqlDatabase } from '@wap/platform';
import type { DirectoryClient } from '@wap/workspace-directory';
import { workflowPermissions } from '../db/schema';
import type { WorkflowRow } from './repository';

/** Who is asking: a person with their role, or a workspace API key (which counts as a member). */
export type WorkflowCaller =
  { kind: 'person'; userId: string; role: WorkspaceRole } | { kind: 'api_key' };

/** Whether a level lets the caller act on a workflow owned by `ownerId`. */
export function levelPermits(
  level: WorkflowPermissionLevel,
  caller: WorkflowCaller,
  ownerId: string,
): boolean {
  if (level === 'member') return true;
  if (caller.kind === 'api_key') return false;
  if (caller.role === 'owner') return true;
  return level === 'workflow_owner' && caller.userId === ownerId;
}

/** What a workflow does (its trigger and steps), as text that equal content always gives. */
export function contentOf(workflow: {
  webhookId: string | null;
  customResponse: unknown;
  providerEvents: unknown;
  steps: unknown;
}): string {
  return canonicalJson({
    trigger: workflow.webhookId
      ? { customResponse: workflow.customResponse, providerEvents: workflow.providerEvents ?? null }
      : null,
    steps: workflow.steps,
  });
}

/** The approval steps, in order: what `change_approvals` guards. */
export function approvalsOf(
  steps: readonly Pick<
    Step,
    'type' | 'settings' | 'then' | 'else' | 'cases' | 'default' | 'steps'
  >[],
): string {
  return canonicalJson(
    placedSteps(steps)
      .map(({ step }) => step)
      .filter((step) => step.type === 'approval')
      .map((step) => step.settings),
  );
}

const StoredPermissions = WorkflowPermissions.partial();

/**
 * The one place that decides who may do what with a workflow (decision 147): every route of
 * workflows, schedules and the platform's MCP server asks here.
 */
export function createWorkflowAuthority(deps: {
  db: SqlDatabase;
  clock: Clock;
  directory: DirectoryClient;
}) {
  const { db, directory } = deps;

  async function permissionsOf(
    workspaceId: string,
  ): Promise<{ permissions: WorkflowPermissions; updatedAt: Date | null }> {
    const [row] = await db
      .select()
      .from(workflowPermissions)
      .where(eq(workflowPermissions.workspaceId, workspaceId));
    if (!row) return { permissions: DEFAULT_WORKFLOW_PERMISSIONS, updatedAt: null };
    // Levels added later default to every member, as they were before they existed.
    const stored = StoredPermissions.parse(row.permissions);
    return {
      permissions: { ...DEFAULT_WORKFLOW_PERMISSIONS, ...stored },
      updatedAt: row.updatedAt,
    };
  }

  /** The caller's role in the workflow's workspace; undefined for outsiders. */
  const roleIn = (workflow: WorkflowRow, userId: string) =>
    directory.confirmedRoleOf(workflow.workspaceId, userId);

  /** The caller's role, or 404: outsiders cannot tell a workflow they cannot see from none. */
  async function memberOf(workflow: WorkflowRow, userId: string): Promise<WorkspaceRole> {
    const role = await roleIn(workflow, userId);
    if (!role) throw new AppError('NOT_FOUND', 'Workflow not found');
    return role;
  }

  /** Throws 403 unless every action is allowed to the caller on this workflow. */
  async function authorize(
    workflow: WorkflowRow,
    caller: WorkflowCaller,
    actions: readonly WorkflowAction[],
  ): Promise<void> {
    if (actions.length === 0) return;
    const { permissions } = await permissionsOf(workflow.workspaceId);
    for (const action of actions) {
      const level = permissions[action];
      if (!levelPermits(level, caller, workflow.ownerId)) {
        throw new AppError('FORBIDDEN', workflowActionRefusal(action, level));
      }
    }
  }

  return {
    permissionsOf,
    roleIn,
    memberOf,
    authorize,
    /** A member's check in one call: 404 for outsiders, 403 for an action the role lacks. */
    async authorizePerson(
      workflow: WorkflowRow,
      userId: string,
      actions: readonly WorkflowAction[],
    ): Promise<WorkspaceRole> {
      const role = await memberOf(workflow, userId);
      await authorize(workflow, { kind: 'person', userId, role }, actions);
      return role;
    },
    async savePermissions(
      workspaceId: string,
      changes: Partial<WorkflowPermissions>,
      userId: string,
    ): Promise<{ permissions: WorkflowPermissions; updatedAt: Date }> {
      const { permissions: current } = await permissionsOf(workspaceId);
      const permissions = { ...current, ...changes };
      const updatedAt = deps.clock.now();
      await db
        .insert(workflowPermissions)
        .values({ workspaceId, permissions, updatedBy: userId, updatedAt })
        .onConflictDoUpdate({
          target: workflowPermissions.workspaceId,
          set: { permissions, updatedBy: userId, updatedAt },
        });
      return { permissions, updatedAt };
    },
  };
}

export type WorkflowAuthority = ReturnType<typeof createWorkflowAuthority>;
