import type { Logger } from 'pino';
import {
  AppError,
  DIRECTORY_BUCKET,
  DirectoryWorkspace,
  directoryKey,
  type WorkspaceRole,
} from '@wap/contracts';
import { createKvMirror, type Kv } from '@wap/platform';

/**
 * A local, always-current copy of the workspace directory that storage publishes in the
 * `directory` KV bucket: membership checks cost a map lookup instead of a bus request.
 */
export interface DirectoryClient {
  /** The workspace as published, deleted ones included; undefined when unknown. */
  workspace(workspaceId: string): DirectoryWorkspace | undefined;
  /** The user's role; undefined when not a member or when the workspace is unknown or deleted. */
  roleOf(workspaceId: string, userId: string): WorkspaceRole | undefined;
  /** True only for a member of a workspace that exists and is not deleted. */
  isMember(workspaceId: string, userId: string): boolean;
  /** True when the workspace existed and was soft-deleted (webhooks answer 410 for it). */
  isDeleted(workspaceId: string): boolean;
  /**
   * The user's role, reading KV directly when the local copy says "not a member": the watch can
   * lag a write by milliseconds, and a workspace created a moment ago must not answer 404.
   */
  confirmedRoleOf(workspaceId: string, userId: string): Promise<WorkspaceRole | undefined>;
  /**
   * The user's confirmed role, else 404 `Workspace not found`: outsiders cannot tell a workspace
   * they are not in from one that does not exist.
   */
  requireMember(workspaceId: string, userId: string): Promise<WorkspaceRole>;
  /** The workspace, read from KV directly when the local copy does not know it yet. */
  confirmedWorkspace(workspaceId: string): Promise<DirectoryWorkspace | undefined>;
  /** Stops watching the bucket (once, however often called); the last known state stays readable. */
  stop(): Promise<void>;
}

interface DirectoryClientDeps {
  kv: Kv;
  logger: Logger;
}

/** Starts watching the directory bucket, once its current content has been read. */
export async function createDirectoryClient(deps: DirectoryClientDeps): Promise<DirectoryClient> {
  const mirror = await createKvMirror({
    kv: deps.kv,
    bucket: DIRECTORY_BUCKET,
    schema: DirectoryWorkspace,
    logger: deps.logger,
    keyPrefix: directoryKey(''),
  });
  const workspace = (workspaceId: string) => mirror.cached(directoryKey(workspaceId));

  function liveWorkspace(workspaceId: string): DirectoryWorkspace | undefined {
    const known = workspace(workspaceId);
    return known && !known.deleted ? known : undefined;
  }

  function roleOf(workspaceId: string, userId: string): WorkspaceRole | undefined {
    const members = liveWorkspace(workspaceId)?.members;
    // Own properties only: `members` came from JSON, and `constructor` must not read as a role.
    return members && Object.hasOwn(members, userId) ? members[userId] : undefined;
  }

  async function confirmedRoleOf(
    workspaceId: string,
    userId: string,
  ): Promise<WorkspaceRole | undefined> {
    const cached = roleOf(workspaceId, userId);
    if (cached) return cached;
    await mirror.confirmed(directoryKey(workspaceId));
    return roleOf(workspaceId, userId);
  }

  return {
    workspace,
    confirmedRoleOf,
    async requireMember(workspaceId, userId) {
      const role = await confirmedRoleOf(workspaceId, userId);
      if (!role) throw new AppError('NOT_FOUND', 'Workspace not found');
      return role;
    },
    async confirmedWorkspace(workspaceId) {
      return workspace(workspaceId) ?? mirror.confirmed(directoryKey(workspaceId));
    },
    roleOf,
    isMember: (workspaceId, userId) => roleOf(workspaceId, userId) !== undefined,
    isDeleted: (workspaceId) => workspace(workspaceId)?.deleted === true,
    stop: () => mirror.stop(),
  };
}
