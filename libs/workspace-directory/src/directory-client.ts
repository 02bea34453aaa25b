import type { Logger } from 'pino';
import {
  AppError,
  DIRECTORY_BUCKET,
  DirectoryWorkspace,
  directoryKey,
  type WorkspaceRole,
} from '@wap/contracts';
import { decodeJson, type Kv, type KvWatchEvent } from '@wap/platform';

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
  /** Resolves once the bucket's current content has been read. */
  ready(): Promise<void>;
  /** Stops watching the bucket (once, however often called); the last known state stays readable. */
  stop(): Promise<void>;
}

export interface DirectoryClientDeps {
  kv: Kv;
  logger: Logger;
}

const KEY_PREFIX = directoryKey('');

/** Starts watching the directory bucket; call `ready()` before trusting a negative answer. */
export async function createDirectoryClient(deps: DirectoryClientDeps): Promise<DirectoryClient> {
  const { kv, logger } = deps;
  const workspaces = new Map<string, DirectoryWorkspace>();
  let markReady: () => void = () => undefined;
  const replayed = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  function apply(event: KvWatchEvent): void {
    switch (event.kind) {
      case 'put': {
        if (!event.entry.key.startsWith(KEY_PREFIX)) return;
        const parsed = DirectoryWorkspace.safeParse(decodeEntry(event.entry.value));
        if (!parsed.success) {
          // A value this client cannot read must not erase what it knew: keep the last good one.
          logger.warn({ key: event.entry.key }, 'ignoring a directory entry that does not parse');
          return;
        }
        workspaces.set(parsed.data.id, parsed.data);
        return;
      }
      case 'delete':
        if (event.key.startsWith(KEY_PREFIX)) workspaces.delete(event.key.slice(KEY_PREFIX.length));
        return;
    }
  }

  const bucket = await kv.bucket(DIRECTORY_BUCKET);
  const watcher = await bucket.watch(apply, () => markReady());
  let stopped: Promise<void> | undefined;

  function liveWorkspace(workspaceId: string): DirectoryWorkspace | undefined {
    const workspace = workspaces.get(workspaceId);
    return workspace && !workspace.deleted ? workspace : undefined;
  }

  function roleOf(workspaceId: string, userId: string): WorkspaceRole | undefined {
    const members = liveWorkspace(workspaceId)?.members;
    // Own properties only: `members` came from JSON, and `constructor` must not read as a role.
    return members && Object.hasOwn(members, userId) ? members[userId] : undefined;
  }

  async function readThrough(workspaceId: string): Promise<void> {
    const entry = await bucket.get(directoryKey(workspaceId));
    if (entry) apply({ kind: 'put', entry });
  }

  async function confirmedRoleOf(
    workspaceId: string,
    userId: string,
  ): Promise<WorkspaceRole | undefined> {
    const cached = roleOf(workspaceId, userId);
    if (cached) return cached;
    await readThrough(workspaceId);
    return roleOf(workspaceId, userId);
  }

  return {
    workspace: (workspaceId) => workspaces.get(workspaceId),
    confirmedRoleOf,
    async requireMember(workspaceId, userId) {
      const role = await confirmedRoleOf(workspaceId, userId);
      if (!role) throw new AppError('NOT_FOUND', 'Workspace not found');
      return role;
    },
    async confirmedWorkspace(workspaceId) {
      if (!workspaces.has(workspaceId)) await readThrough(workspaceId);
      return workspaces.get(workspaceId);
    },
    roleOf,
    isMember: (workspaceId, userId) => roleOf(workspaceId, userId) !== undefined,
    isDeleted: (workspaceId) => workspaces.get(workspaceId)?.deleted === true,
    ready: () => replayed,
    stop() {
      stopped ??= watcher.stop();
      return stopped;
    },
  };
}

function decodeEntry(value: Uint8Array): unknown {
  try {
    return decodeJson(value);
  } catch {
    return undefined;
  }
}
