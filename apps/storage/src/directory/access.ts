import { AppError, type WorkspaceRole } from '@wap/contracts';

/** What the caller's relation to a workspace is, as read from the database. */
export interface WorkspaceStanding {
  /** False for an unknown workspace and for a soft-deleted one: both look the same from outside. */
  exists: boolean;
  /** The caller's role, null when the caller is not a member. */
  role: WorkspaceRole | null;
}

const WORKSPACE_NOT_FOUND = 'Workspace not found';

/**
 * The rule for every workspace route: a caller who is not a member cannot tell a workspace from
 * one that does not exist, so outsiders get the same 404 as for an unknown id.
 */
export function requireMember(standing: WorkspaceStanding): WorkspaceRole {
  if (!standing.exists || standing.role === null) {
    throw new AppError('NOT_FOUND', WORKSPACE_NOT_FOUND);
  }
  return standing.role;
}

/** Owner-only actions: outsiders get the member rule's 404, members a 403 saying why. */
export function requireOwner(standing: WorkspaceStanding, forbiddenMessage: string): void {
  if (requireMember(standing) !== 'owner') throw new AppError('FORBIDDEN', forbiddenMessage);
}

/**
 * Notification settings (spec endpoint 7 and its GET twin) follow the spec's own three errors:
 * an unknown or deleted workspace is 404, an authenticated non-member 403.
 */
export function requireMemberForNotificationSettings(standing: WorkspaceStanding): WorkspaceRole {
  if (!standing.exists) throw new AppError('NOT_FOUND', WORKSPACE_NOT_FOUND);
  if (standing.role === null) {
    throw new AppError('FORBIDDEN', 'You are not a member of this workspace');
  }
  return standing.role;
}

/** Emails are compared and stored lower-cased and trimmed. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The subject held by a user added by email before they ever signed in; their first session
 * with that email claims the row by replacing it with the real subject.
 */
export function placeholderSubject(email: string): string {
  return `email:${normalizeEmail(email)}`;
}

/** A name to show for a user added by email until their first session brings the real one. */
export function placeholderName(email: string): string {
  const normalized = normalizeEmail(email);
  const at = normalized.indexOf('@');
  return at > 0 ? normalized.slice(0, at) : normalized;
}

/**
 * A record of a workspace (table, contact, task...) as its caller may see it: an unknown id, a
 * record of a deleted workspace and one of a workspace the caller is not in are the same 404.
 */
export function requireVisible<Resource>(
  resource: Resource | null,
  standing: WorkspaceStanding | null,
  notFoundMessage: string,
): Resource {
  if (resource === null || standing === null || !standing.exists || standing.role === null) {
    throw new AppError('NOT_FOUND', notFoundMessage);
  }
  return resource;
}
