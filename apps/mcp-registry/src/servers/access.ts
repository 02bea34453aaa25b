import type { McpAccessMode, WorkspaceRole } from '@wap/contracts';

/** What access rules need to know about a server. */
export interface ServerAccess {
  createdBy: string;
  accessMode: McpAccessMode;
  accessibleTo: readonly string[];
}

/**
 * Who may see and use a server (docs/decisions/0021). Only members of its workspace, ever; the
 * creator always; then by mode: everyone → every member; specific → the listed members and the
 * workspace owners; specific_users → the listed members only; creator_only → nobody else.
 */
export function canUse(
  server: ServerAccess,
  userId: string,
  role: WorkspaceRole | undefined,
): boolean {
  if (!role) return false;
  if (server.createdBy === userId) return true;
  switch (server.accessMode) {
    case 'everyone':
      return true;
    case 'specific':
      return role === 'owner' || server.accessibleTo.includes(userId);
    case 'specific_users':
      return server.accessibleTo.includes(userId);
    case 'creator_only':
      return false;
  }
}

/** Changing, deleting and toggling tools: the creator or a workspace owner. */
export function canManage(
  server: ServerAccess,
  userId: string,
  role: WorkspaceRole | undefined,
): boolean {
  return role !== undefined && (server.createdBy === userId || role === 'owner');
}
