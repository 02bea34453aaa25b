import {
  decideAccessRequest,
  findAccessRequest,
  hasPendingAccessRequest,
  pendingAccessRequests,
  requestAccess,
} from './access-requests';
import {
  createConversation,
  findConversation,
  findConversationForViewer,
  listConversationsForViewer,
  setConversationStarred,
  softDeleteConversation,
  updateConversation,
} from './chats';
import {
  inviteParticipants,
  listConversationParticipants,
  removeParticipant,
} from './participants';
import { personName, rememberPerson, type RememberedNames } from './people';
import type { ConversationStore } from './records';

/**
 * The chats, their participants and access requests, and the names of people seen, in the
 * database: each method is a function of `chats`, `participants`, `access-requests` or `people`,
 * where its contract is documented, bound to the store.
 */
export function createConversationRepository(store: ConversationStore) {
  const bound =
    <Args extends unknown[], Result>(
      operation: (store: ConversationStore, ...args: Args) => Result,
    ) =>
    (...args: Args): Result =>
      operation(store, ...args);
  const rememberedNames: RememberedNames = new Map();
  return {
    create: bound(createConversation),
    findById: bound(findConversation),
    findForViewer: bound(findConversationForViewer),
    listForViewer: bound(listConversationsForViewer),
    update: bound(updateConversation),
    setStarred: bound(setConversationStarred),
    softDelete: bound(softDeleteConversation),
    rememberPerson: (actor: { userId: string; name: string }) =>
      rememberPerson(store, rememberedNames, actor),
    personName: bound(personName),
    invite: bound(inviteParticipants),
    listParticipants: bound(listConversationParticipants),
    removeParticipant: bound(removeParticipant),
    hasPendingRequest: bound(hasPendingAccessRequest),
    requestAccess: bound(requestAccess),
    pendingRequests: bound(pendingAccessRequests),
    findRequest: bound(findAccessRequest),
    decideRequest: bound(decideAccessRequest),
  };
}

export type ConversationRepository = ReturnType<typeof createConversationRepository>;
