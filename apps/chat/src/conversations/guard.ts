import { z } from 'zod';
import { AppError, type Actor, type WorkspaceRole } from '@wap/contracts';
import type { DirectoryClient } from '@wap/workspace-directory';
import { ChatAccessDenied } from '../http/access-denied';
import { chatAccess, type ChatAccess } from './access';
import type { ConversationRecord } from './records';
import type { ConversationRepository } from './repository';

/** A chat the caller may open, with what they may do in it. */
export interface OpenedConversation {
  record: ConversationRecord;
  /** The caller's role in the chat's workspace. */
  role: WorkspaceRole;
  viewerIsOwner: boolean;
  /** True when the caller may send messages (decision 80). */
  viewerCanEdit: boolean;
  /** The caller's own pin (decision 81). */
  starred: boolean;
}

/** A live chat of a workspace the caller is a member of, whether or not they may open it. */
export interface LocatedConversation {
  record: ConversationRecord;
  role: WorkspaceRole;
  viewerIsOwner: boolean;
  access: ChatAccess;
  /** The caller's own pin (decision 81). */
  starred: boolean;
}

export interface ConversationGuard {
  /**
   * The rule of every chat route (spec endpoint 1): an unknown, malformed or deleted id and a
   * chat of a workspace the caller is not in are one 404 "Chat not found"; a member who may not
   * open the chat gets ChatAccessDenied (403, the Access-denied body).
   */
  open(conversationId: string, actor: Actor): Promise<OpenedConversation>;
  /** The 404 half of `open` only: for the caller who asks for access, and for views. */
  locate(conversationId: string, actor: Actor): Promise<LocatedConversation>;
}

export interface ConversationGuardDeps {
  repository: ConversationRepository;
  directory: DirectoryClient;
}

/** Every "no such chat for you" is this one error, so its bytes never tell the cases apart. */
export function chatNotFound(): AppError {
  return new AppError('NOT_FOUND', 'Chat not found');
}

const ChatId = z.uuid();

export function createConversationGuard(deps: ConversationGuardDeps): ConversationGuard {
  const { repository, directory } = deps;

  async function locate(conversationId: string, actor: Actor): Promise<LocatedConversation> {
    if (!ChatId.safeParse(conversationId).success) throw chatNotFound();
    const found = await repository.findForViewer(conversationId, actor.userId);
    if (!found || found.record.deletedAt !== null) throw chatNotFound();
    const role = await directory.confirmedRoleOf(found.record.workspaceId, actor.userId);
    if (!role) throw chatNotFound();
    const viewerIsOwner = found.record.userId === actor.userId;
    const access = chatAccess({
      accessType: found.record.accessType,
      isOwner: viewerIsOwner,
      isMember: true,
      participant: found.participant,
    });
    return { record: found.record, role, viewerIsOwner, access, starred: found.starred };
  }

  return {
    locate,
    async open(conversationId, actor) {
      const located = await locate(conversationId, actor);
      const { record, role, viewerIsOwner, access, starred } = located;
      if (!access.canRead) {
        const [ownerName, alreadyRequested] = await Promise.all([
          repository.personName(record.userId),
          repository.hasPendingRequest(record.id, actor.userId),
        ]);
        throw new ChatAccessDenied({
          error: 'access_denied',
          resource: {
            id: record.id,
            type: 'chat',
            name: record.title,
            ownerName,
            alreadyRequested,
          },
        });
      }
      return { record, role, viewerIsOwner, viewerCanEdit: access.canEdit, starred };
    },
  };
}
