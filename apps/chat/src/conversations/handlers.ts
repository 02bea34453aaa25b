import { z } from 'zod';
import {
  AccessRequestParams,
  AppError,
  ChatIdParams,
  CONVERSATIONS_PAGE,
  CreateConversationBody,
  GrantAccessBody,
  InviteBody,
  ListConversationsQuery,
  pageLimit,
  ParticipantParams,
  UpdateConversationBody,
  type Actor,
} from '@wap/contracts';
import {
  actorOf,
  decodeKeysetCursor,
  encodeKeysetCursor,
  parseRequestPart,
  type RouteHandler,
} from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import {
  chatAccess,
  mergeSharedMetadata,
  requireChatOwner,
  splitMetadataPatch,
  updateRequirement,
} from './access';
import { chatNotFound, type ConversationGuard, type OpenedConversation } from './guard';
import type { ConversationRepository } from './repository';
import type { AccessRequestRecord } from './records';
import { accessRequestView, conversationView, participantView } from './views';

export type ConversationOperation =
  | 'create_conversation'
  | 'list_conversations'
  | 'get_conversation'
  | 'update_conversation'
  | 'delete_conversation'
  | 'invite_to_conversation'
  | 'list_conversation_participants'
  | 'remove_conversation_participant'
  | 'request_conversation_access'
  | 'list_conversation_access_requests'
  | 'grant_conversation_access'
  | 'decline_conversation_access';

export interface ConversationHandlersDeps {
  repository: ConversationRepository;
  guard: ConversationGuard;
  directory: DirectoryClient;
}

const CONVERSATIONS_CURSOR = 'conversations';
const OWNER_ONLY = {
  share: 'Only the owner can change who may open this chat',
  invite: 'Only the owner can invite to this chat',
  requests: 'Only the owner can see and decide access requests',
  delete: 'Only the owner can delete this chat',
  removeParticipant: 'Only the owner can take someone else out of this chat',
} as const;
const RequestId = z.uuid();

function openedView(opened: OpenedConversation) {
  return conversationView(opened.record, {
    isOwner: opened.viewerIsOwner,
    canEdit: opened.viewerCanEdit,
    starred: opened.starred,
  });
}

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createConversationHandlers(
  deps: ConversationHandlersDeps,
): Record<ConversationOperation, RouteHandler> {
  const { repository, guard, directory } = deps;

  /** A chat the caller owns; anyone else who can open it gets 403 FORBIDDEN. */
  async function ownedChat(
    id: string,
    actor: Actor,
    forbiddenMessage: string,
  ): Promise<OpenedConversation> {
    const opened = await guard.open(id, actor);
    requireChatOwner(opened.viewerIsOwner, forbiddenMessage);
    return opened;
  }

  /** A request of this chat; a malformed id and one of another chat are not found. */
  async function requestOf(conversationId: string, requestId: string) {
    const request = RequestId.safeParse(requestId).success
      ? await repository.findRequest(conversationId, requestId)
      : null;
    if (!request) throw new AppError('NOT_FOUND', 'Access request not found');
    return request;
  }

  function alreadyDecided(status: AccessRequestRecord['status']): AppError {
    return new AppError('CONFLICT', `This access request was already ${status}`);
  }

  /** Another decision won the race: say which. */
  async function decidedMeanwhile(conversationId: string, requestId: string): Promise<AppError> {
    const current = await requestOf(conversationId, requestId);
    return alreadyDecided(current.status);
  }

  return {
    async create_conversation(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateConversationBody, request.body);
      await directory.requireMember(body.workspaceId, actor.userId);
      const metadata = splitMetadataPatch(body.metadata);
      const record = await repository.create({
        workspaceId: body.workspaceId,
        userId: actor.userId,
        projectId: body.projectId ?? null,
        title: body.title ?? null,
        source: body.source ?? null,
        accessType: body.access_type ?? 'private',
        metadata: metadata.shared ? mergeSharedMetadata(null, metadata.shared) : null,
      });
      await repository.rememberPerson(actor);
      const starred = metadata.starred === true;
      if (starred) await repository.setStarred(record.id, actor.userId, true);
      return {
        status: 201,
        body: { conversation: conversationView(record, { isOwner: true, canEdit: true, starred }) },
      };
    },

    async list_conversations(request) {
      const actor = actorOf(request);
      const query = parseRequestPart(ListConversationsQuery, request.query);
      await directory.requireMember(query.workspaceId, actor.userId);
      const limit = pageLimit(query.limit, CONVERSATIONS_PAGE);
      const archived = query.archived ?? 'false';
      const rows = await repository.listForViewer({
        workspaceId: query.workspaceId,
        userId: actor.userId,
        archived: archived === 'all' ? null : archived === 'true',
        after: decodeKeysetCursor(CONVERSATIONS_CURSOR, query.cursor) ?? null,
        limit: limit + 1,
      });
      const page = rows.slice(0, limit);
      const last = page.at(-1)?.record;
      return {
        status: 200,
        body: {
          conversations: page.map(({ record, participant, starred }) => {
            const isOwner = record.userId === actor.userId;
            const access = chatAccess({
              accessType: record.accessType,
              isOwner,
              isMember: true,
              participant,
            });
            return conversationView(record, { isOwner, canEdit: access.canEdit, starred });
          }),
          nextCursor:
            rows.length > limit && last
              ? encodeKeysetCursor(CONVERSATIONS_CURSOR, { at: last.lastActivityAt, id: last.id })
              : null,
        },
      };
    },

    async get_conversation(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      return { status: 200, body: { conversation: openedView(await guard.open(id, actor)) } };
    },

    async update_conversation(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const body = parseRequestPart(UpdateConversationBody, request.body);
      const opened = await guard.open(id, actor);
      const metadata = splitMetadataPatch(body.metadata);
      const requirement = updateRequirement({
        accessType: body.access_type !== undefined,
        title: body.title !== undefined,
        isArchived: body.is_archived !== undefined,
        sharedMetadata: metadata.shared !== undefined,
      });
      if (requirement === 'owner') requireChatOwner(opened.viewerIsOwner, OWNER_ONLY.share);
      if (requirement === 'editor' && !opened.viewerCanEdit) {
        throw new AppError('FORBIDDEN', 'You cannot edit this chat');
      }
      let record = opened.record;
      if (requirement !== 'viewer') {
        const updated = await repository.update(id, {
          title: body.title,
          accessType: body.access_type,
          isArchived: body.is_archived,
          metadata: metadata.shared,
        });
        if (!updated) throw chatNotFound();
        record = updated;
      }
      let starred = opened.starred;
      if (metadata.starred !== undefined) {
        await repository.setStarred(id, actor.userId, metadata.starred);
        starred = metadata.starred;
      }
      return {
        status: 200,
        body: {
          conversation: conversationView(record, {
            isOwner: opened.viewerIsOwner,
            canEdit: opened.viewerCanEdit,
            starred,
          }),
        },
      };
    },

    async delete_conversation(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      await ownedChat(id, actor, OWNER_ONLY.delete);
      await repository.softDelete(id);
      return { status: 204 };
    },

    async invite_to_conversation(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const body = parseRequestPart(InviteBody, request.body);
      const { record } = await ownedChat(id, actor, OWNER_ONLY.invite);
      // The owner reads and sends always: inviting them changes nothing.
      const invitees = [...new Set(body.userIds)].filter((userId) => userId !== record.userId);
      const roles = await Promise.all(
        invitees.map((userId) => directory.confirmedRoleOf(record.workspaceId, userId)),
      );
      const outsiders = invitees.filter((_, index) => roles[index] === undefined);
      if (outsiders.length > 0) {
        throw new AppError('VALIDATION_ERROR', 'Only members of the workspace can be invited', {
          details: [
            {
              path: ['userIds'],
              message: 'These users are not members of the workspace',
              userIds: outsiders,
            },
          ],
        });
      }
      const participants = await repository.invite(record.id, invitees, body.canEdit);
      return { status: 201, body: { participants: participants.map(participantView) } };
    },

    async list_conversation_participants(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const { record } = await guard.open(id, actor);
      const participants = await repository.listParticipants(record.id);
      return { status: 200, body: { participants: participants.map(participantView) } };
    },

    async remove_conversation_participant(request) {
      const actor = actorOf(request);
      const { id, userId } = parseRequestPart(ParticipantParams, request.params);
      const opened = await guard.open(id, actor);
      if (userId !== actor.userId) {
        requireChatOwner(opened.viewerIsOwner, OWNER_ONLY.removeParticipant);
      }
      if (!(await repository.removeParticipant(opened.record.id, userId))) {
        throw new AppError('NOT_FOUND', 'Participant not found');
      }
      return { status: 204 };
    },

    async request_conversation_access(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const located = await guard.locate(id, actor);
      if (located.access.canRead) {
        throw new AppError('CONFLICT', 'You can already open this chat');
      }
      await repository.rememberPerson(actor);
      const { request: accessRequest, created } = await repository.requestAccess(
        located.record.id,
        actor.userId,
      );
      return {
        status: created ? 201 : 200,
        body: { accessRequest: accessRequestView(accessRequest) },
      };
    },

    async list_conversation_access_requests(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(ChatIdParams, request.params);
      const { record } = await ownedChat(id, actor, OWNER_ONLY.requests);
      const pending = await repository.pendingRequests(record.id);
      return { status: 200, body: { accessRequests: pending.map(accessRequestView) } };
    },

    async grant_conversation_access(request) {
      const actor = actorOf(request);
      const params = parseRequestPart(AccessRequestParams, request.params);
      const body = parseRequestPart(GrantAccessBody, request.body ?? {});
      const { record } = await ownedChat(params.id, actor, OWNER_ONLY.requests);
      const accessRequest = await requestOf(record.id, params.accessRequestId);
      if (accessRequest.status !== 'pending') throw alreadyDecided(accessRequest.status);
      const granted = await repository.decideRequest(
        accessRequest,
        { status: 'granted', canEdit: body.canEdit },
        actor.userId,
      );
      if (!granted) throw await decidedMeanwhile(record.id, params.accessRequestId);
      return { status: 200, body: { accessRequest: accessRequestView(granted) } };
    },

    async decline_conversation_access(request) {
      const actor = actorOf(request);
      const params = parseRequestPart(AccessRequestParams, request.params);
      const { record } = await ownedChat(params.id, actor, OWNER_ONLY.requests);
      const accessRequest = await requestOf(record.id, params.accessRequestId);
      if (accessRequest.status !== 'pending') throw alreadyDecided(accessRequest.status);
      const declined = await repository.decideRequest(
        accessRequest,
        { status: 'declined' },
        actor.userId,
      );
      if (!declined) throw await decidedMeanwhile(record.id, params.accessRequestId);
      return { status: 200, body: { accessRequest: accessRequestView(declined) } };
    },
  };
}
