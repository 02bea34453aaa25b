import type { Logger } from 'pino';
import { generateApiKey, hashApiKey } from '@wap/auth';
import {
  AddMemberBody,
  AppError,
  ApiKeyIdParams,
  LAST_OWNER_MESSAGE,
  MemberParams,
  UpdateMemberBody,
  CreateApiKeyBody,
  CreateWorkspaceBody,
  NotificationSettingsBody,
  PreferencesBody,
  WorkspaceIdParams,
  type directoryRoutes,
  type EnsureUserReply,
  type EnsureUserRequest,
  type FirstWorkspaceReply,
  type FirstWorkspaceRequest,
  type OperationsOf,
  type OperatorDeleteWorkspaceReply,
  type OperatorDeleteWorkspaceRequest,
  type ServiceReply,
  type VerifyApiKeyReply,
  type VerifyApiKeyRequest,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import { requireMember, requireMemberForNotificationSettings, requireOwner } from './access';
import type { MeCache, StoredMe } from './me-cache';
import type { DirectoryPublisher } from './publisher';
import type { DirectoryRepository } from './repository';

export type DirectoryOperation = OperationsOf<typeof directoryRoutes, 'storage'>;

export interface DirectoryHandlers {
  routes: Record<DirectoryOperation, RouteHandler>;
  ensureUser(request: EnsureUserRequest): Promise<EnsureUserReply>;
  firstWorkspace(request: FirstWorkspaceRequest): Promise<FirstWorkspaceReply>;
  verifyApiKey(request: VerifyApiKeyRequest): Promise<VerifyApiKeyReply>;
  /** The admin CLI's delete: no owner check, an operator acts for the platform. */
  operatorDeleteWorkspace(
    request: OperatorDeleteWorkspaceRequest,
  ): Promise<OperatorDeleteWorkspaceReply>;
}

export interface DirectoryHandlersDeps {
  repository: DirectoryRepository;
  publisher: DirectoryPublisher;
  /** Answers of `GET /me`; every write below that changes one tells it. */
  meCache: MeCache;
  logger: Logger;
}

const INVALID_KEY: VerifyApiKeyReply = { valid: false, workspaceId: null, keyId: null };

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createDirectoryHandlers(deps: DirectoryHandlersDeps): DirectoryHandlers {
  const { repository, publisher, meCache, logger } = deps;

  async function readMe(userId: string): Promise<StoredMe | null> {
    const [user, memberships] = await Promise.all([
      repository.findUser(userId),
      repository.listMemberships(userId),
    ]);
    if (!user) return null;
    return {
      user: { id: user.id, email: user.email, name: user.name },
      workspaces: memberships.map((membership) => ({
        id: membership.workspaceId,
        name: membership.workspaceName,
        role: membership.role,
        joined_at: membership.joinedAt.toISOString(),
      })),
      preferences: { approval_tasks_email: user.approvalTasksEmail },
    };
  }

  /** A deleted workspace leaves every member's `/me`. */
  async function softDeleteWorkspace(workspaceId: string): Promise<void> {
    await repository.softDeleteWorkspace(workspaceId);
    meCache.changed(Object.keys((await repository.directoryEntry(workspaceId))?.members ?? {}));
  }

  /**
   * The change is committed when this runs, so a failed publish must not turn the request into
   * an error the client would retry (and, for a new workspace, duplicate). The next change of
   * the workspace or the republish at start brings the bucket back in step.
   */
  async function publishAfterCommit(workspaceId: string): Promise<void> {
    try {
      await publisher.publish(workspaceId);
    } catch (error) {
      logger.error({ err: error, workspaceId }, 'directory publish failed');
    }
  }

  const routes: Record<DirectoryOperation, RouteHandler> = {
    async get_me(request): Promise<ServiceReply> {
      const actor = actorOf(request);
      const body =
        meCache.get(actor.userId) ?? (await meCache.load(actor.userId, () => readMe(actor.userId)));
      if (!body) throw new AppError('NOT_FOUND', 'User not found');
      // The session says who administers the platform, not the stored user: never cached.
      return { status: 200, body: { ...body, platform_admin: actor.platformAdmin } };
    },

    async update_preferences(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(PreferencesBody, request.body);
      const saved = await repository.setApprovalTasksEmail(actor.userId, body.approval_tasks_email);
      if (saved === null) throw new AppError('NOT_FOUND', 'User not found');
      meCache.changed([actor.userId]);
      return { status: 200, body: { preferences: { approval_tasks_email: saved } } };
    },

    async create_workspace(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateWorkspaceBody, request.body);
      const workspace = await repository.createWorkspace(actor.userId, body.name);
      meCache.changed([actor.userId]);
      await publishAfterCommit(workspace.id);
      return {
        status: 201,
        body: {
          workspace: {
            id: workspace.id,
            name: workspace.name,
            created_at: workspace.createdAt.toISOString(),
          },
        },
      };
    },

    async delete_workspace(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can delete the workspace',
      );
      await softDeleteWorkspace(workspaceId);
      await publishAfterCommit(workspaceId);
      return { status: 204 };
    },

    async list_members(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      requireMember(await repository.standingOf(workspaceId, actor.userId));
      const found = await repository.membersOf(workspaceId);
      return {
        status: 200,
        body: {
          members: found.map((member) => ({
            user_id: member.userId,
            workspace_id: workspaceId,
            email: member.email,
            name: member.name,
            role: member.role,
            joined_at: member.joinedAt.toISOString(),
          })),
        },
      };
    },

    async add_member(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(AddMemberBody, request.body);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can add members',
      );
      const user = await repository.findOrCreateUserByEmail(body.email);
      const added = await repository.addMember(workspaceId, user.id, body.role);
      if (!added) {
        throw new AppError('CONFLICT', 'User is already a member of this workspace');
      }
      meCache.changed([user.id]);
      await publishAfterCommit(workspaceId);
      return {
        status: 201,
        body: {
          member: {
            user_id: user.id,
            workspace_id: workspaceId,
            email: user.email,
            name: user.name,
            role: body.role,
            joined_at: added.joinedAt.toISOString(),
          },
        },
      };
    },

    async update_member(request) {
      const actor = actorOf(request);
      const { workspaceId, userId } = parseRequestPart(MemberParams, request.params);
      const body = parseRequestPart(UpdateMemberBody, request.body);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can change roles',
      );
      const change = await repository.changeMembership(workspaceId, userId, body.role);
      if (change.outcome === 'not_member') throw new AppError('NOT_FOUND', 'Member not found');
      if (change.outcome === 'last_owner') throw new AppError('CONFLICT', LAST_OWNER_MESSAGE);
      meCache.changed([userId]);
      await publishAfterCommit(workspaceId);
      const member = (await repository.membersOf(workspaceId)).find(
        (candidate) => candidate.userId === userId,
      );
      if (!member) throw new AppError('NOT_FOUND', 'Member not found');
      logger.info({ workspaceId, userId, role: body.role }, 'member role changed');
      return {
        status: 200,
        body: {
          member: {
            user_id: member.userId,
            workspace_id: workspaceId,
            email: member.email,
            name: member.name,
            role: member.role,
            joined_at: member.joinedAt.toISOString(),
          },
        },
      };
    },

    /** Owners remove anyone; a member may remove only themselves (leave). */
    async remove_member(request) {
      const actor = actorOf(request);
      const { workspaceId, userId } = parseRequestPart(MemberParams, request.params);
      const standing = await repository.standingOf(workspaceId, actor.userId);
      if (userId === actor.userId) requireMember(standing);
      else requireOwner(standing, 'Only workspace owners can remove members');
      const change = await repository.changeMembership(workspaceId, userId, null);
      if (change.outcome === 'not_member') throw new AppError('NOT_FOUND', 'Member not found');
      if (change.outcome === 'last_owner') throw new AppError('CONFLICT', LAST_OWNER_MESSAGE);
      meCache.changed([userId]);
      await publishAfterCommit(workspaceId);
      logger.info({ workspaceId, userId, by: actor.userId }, 'member removed');
      return { status: 204 };
    },

    async get_notification_settings(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      requireMemberForNotificationSettings(await repository.standingOf(workspaceId, actor.userId));
      const workspace = await repository.findWorkspace(workspaceId);
      if (!workspace) throw new AppError('NOT_FOUND', 'Workspace not found');
      return { status: 200, body: { email_on_approval: workspace.emailOnApproval } };
    },

    async update_notification_settings(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(NotificationSettingsBody, request.body);
      requireMemberForNotificationSettings(await repository.standingOf(workspaceId, actor.userId));
      await repository.setEmailOnApproval(workspaceId, body.email_on_approval);
      return {
        status: 200,
        body: { success: true, email_on_approval: body.email_on_approval },
      };
    },

    /**
     * Owners only: a key acts for the whole workspace (MCP and automation), so handing one out is
     * an administrative act like adding a member; members get 403.
     */
    async create_api_key(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(CreateApiKeyBody, request.body);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can create API keys',
      );
      const generated = generateApiKey();
      const id = await repository.createApiKey({
        workspaceId,
        name: body.name,
        keyHash: generated.hash,
        prefix: generated.prefix,
        createdBy: actor.userId,
      });
      return { status: 201, body: { id, name: body.name, key: generated.key } };
    },

    async list_api_keys(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can manage API keys',
      );
      return { status: 200, body: { api_keys: await repository.listApiKeys(workspaceId) } };
    },

    /** The gateway asks storage about every key it is shown: a revoked key fails its next request. */
    async revoke_api_key(request) {
      const actor = actorOf(request);
      const { workspaceId, keyId } = parseRequestPart(ApiKeyIdParams, request.params);
      requireOwner(
        await repository.standingOf(workspaceId, actor.userId),
        'Only workspace owners can manage API keys',
      );
      if (!(await repository.revokeApiKey(workspaceId, keyId))) {
        throw new AppError('NOT_FOUND', 'API key not found');
      }
      logger.info({ workspaceId, keyId }, 'API key revoked');
      return { status: 204 };
    },
  };

  return {
    routes,

    async ensureUser(request) {
      const userId = await repository.ensureUser(request);
      // A first sign-in may have renamed the user or claimed a placeholder with memberships.
      meCache.changed([userId]);
      return { userId };
    },

    async firstWorkspace(request) {
      return { workspaceId: await repository.firstWorkspaceOf(request.userId) };
    },

    async verifyApiKey(request) {
      if (!request.key.startsWith('sk_')) return INVALID_KEY;
      const match = await repository.findApiKeyByHash(hashApiKey(request.key));
      if (!match || match.revoked || match.workspaceDeleted) return INVALID_KEY;
      return { valid: true, workspaceId: match.workspaceId, keyId: match.keyId };
    },

    async operatorDeleteWorkspace({ workspaceId }) {
      const workspace = await repository.findWorkspace(workspaceId);
      if (!workspace) throw new AppError('NOT_FOUND', 'Workspace not found');
      if (workspace.deletedAt) return { workspaceId, deleted: false };
      await softDeleteWorkspace(workspaceId);
      await publishAfterCommit(workspaceId);
      logger.info({ workspaceId }, 'workspace deleted by an operator');
      return { workspaceId, deleted: true };
    },
  };
}
