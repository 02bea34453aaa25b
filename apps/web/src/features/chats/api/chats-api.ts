import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type QueryClient,
} from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  AccessRequest,
  AccessRequestResponse,
  AccessRequestsResponse,
  CancelTurnBody,
  CancelTurnResponse,
  ConversationResponse,
  ConversationsPage,
  CreateConversationBody,
  InviteBody,
  Message,
  MessagesPage,
  ParticipantsResponse,
  PostMessageResponse,
  Turn,
  UpdateConversationBody,
  ViewedConversation,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { chatsKeys } from './chats-keys';

export type ChatAccessRequest = z.infer<typeof AccessRequest>;
type ConversationsPageBody = z.infer<typeof ConversationsPage>;

/** Chats a page of the list asks for: a screenful on a desktop, a few on a phone. */
const LIST_PAGE_SIZE = 30;
/** The largest messages page the API gives (MESSAGES_PAGE.max). */
const MESSAGES_PAGE_SIZE = 500;

const conversationPath = (chatId: string, rest = '') =>
  `/ai-chat/conversations/${encodeURIComponent(chatId)}${rest ? `/${rest}` : ''}`;

/** A workspace's chats the caller can open, newest activity first, a page at a time. */
export function useConversationList(workspaceId: string, archived: boolean) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: chatsKeys.list(workspaceId, archived),
    queryFn: ({ pageParam, signal }) =>
      api.get<ConversationsPageBody>('/ai-chat/conversations', {
        signal,
        query: {
          workspaceId,
          archived: archived ? 'true' : 'false',
          cursor: pageParam,
          limit: LIST_PAGE_SIZE,
        },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useCreateConversation(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateConversationBody) =>
      api.post<z.infer<typeof ConversationResponse>>('/ai-chat/conversations', body),
    onSuccess: ({ conversation }) => {
      queryClient.setQueryData(chatsKeys.chat(conversation.id), conversation);
      return queryClient.invalidateQueries({ queryKey: chatsKeys.lists(workspaceId) });
    },
  });
}

/**
 * Spec endpoint 1. A member who may not open the chat gets a 403 with the Access-denied body
 * (`readAccessDenied` reads it); an unknown chat a 404.
 */
export function useConversation(chatId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: chatsKeys.chat(chatId),
    queryFn: async ({ signal }) =>
      (await api.get<z.infer<typeof ConversationResponse>>(conversationPath(chatId), { signal }))
        .conversation,
  });
}

/** Rename, share, archive or star: the answer replaces the cached chat and the lists refresh. */
export function useUpdateConversation(chatId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateConversationBody) =>
      api.patch<z.infer<typeof ConversationResponse>>(conversationPath(chatId), body),
    onSuccess: ({ conversation }) => {
      queryClient.setQueryData(chatsKeys.chat(chatId), conversation);
      return queryClient.invalidateQueries({
        queryKey: chatsKeys.lists(conversation.workspace_id),
      });
    },
  });
}

/** Every message of a chat, oldest first (all pages: a chat is read from its start). */
export function useMessages(chatId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: chatsKeys.messages(chatId),
    queryFn: async ({ signal }) => {
      const messages: Message[] = [];
      let cursor: string | undefined;
      do {
        const page = await api.get<z.infer<typeof MessagesPage>>(
          conversationPath(chatId, 'messages'),
          { signal, query: { cursor, limit: MESSAGES_PAGE_SIZE } },
        );
        messages.push(...page.messages);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return messages;
    },
  });
}

/** Sends a message: 202 with the user's message and the request id of the assistant's turn. */
export function usePostMessage(chatId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (content: string) =>
      api.post<z.infer<typeof PostMessageResponse>>(conversationPath(chatId, 'messages'), {
        content,
      }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: chatsKeys.messages(chatId) }),
  });
}

/** After a turn ended: its reply is stored, and the chat's preview in the lists has moved. */
export function refreshAfterTurn(queryClient: QueryClient, chat: ViewedConversation) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: chatsKeys.messages(chat.id) }),
    queryClient.invalidateQueries({ queryKey: chatsKeys.lists(chat.workspace_id) }),
  ]);
}

/** Spec endpoint 6: stops a turn, or with `cancelToolOnly` only its running tool call. */
export function useCancelTurn() {
  const api = useApiClient();
  return useMutation({
    mutationFn: (body: CancelTurnBody) => api.post<CancelTurnResponse>('/brain/cancel', body),
  });
}

/** A turn's status and error (a failed reply's reason). */
export function useTurn(requestId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: chatsKeys.turn(requestId),
    queryFn: ({ signal }) =>
      api.get<Turn>(`/brain/turns/${encodeURIComponent(requestId)}`, { signal }),
    staleTime: Infinity,
  });
}

/** Asks the owner for access; answered with the pending request (a new or the existing one). */
export function useRequestAccess(chatId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      api.post<z.infer<typeof AccessRequestResponse>>(conversationPath(chatId, 'access-requests')),
    // The chat's 403 now says `alreadyRequested`; a later visit reads it from there.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: chatsKeys.chat(chatId) }),
  });
}

/** Pending access requests of a chat, oldest first (its owner only). */
export function useAccessRequests(chatId: string, enabled: boolean) {
  const api = useApiClient();
  return useQuery({
    queryKey: chatsKeys.accessRequests(chatId),
    queryFn: async ({ signal }) =>
      (
        await api.get<z.infer<typeof AccessRequestsResponse>>(
          conversationPath(chatId, 'access-requests'),
          { signal },
        )
      ).accessRequests,
    enabled,
  });
}

export type AccessDecision =
  | { accessRequestId: string; decision: 'grant'; canEdit: boolean }
  | {
      accessRequestId: string;
      decision: 'decline';
    };

/** Grants (with or without edit rights) or declines a request; a grant may share a private chat. */
export function useDecideAccessRequest(chatId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (decision: AccessDecision) => {
      const path = conversationPath(
        chatId,
        `access-requests/${encodeURIComponent(decision.accessRequestId)}/${decision.decision}`,
      );
      return api.post<z.infer<typeof AccessRequestResponse>>(
        path,
        decision.decision === 'grant' ? { canEdit: decision.canEdit } : undefined,
      );
    },
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: chatsKeys.accessRequests(chatId) }),
        queryClient.invalidateQueries({ queryKey: chatsKeys.chat(chatId), exact: true }),
      ]),
  });
}

/** Invites workspace members; answered with every participant after the change. */
export function useInvite(chatId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: z.infer<typeof InviteBody>) =>
      api.post<z.infer<typeof ParticipantsResponse>>(conversationPath(chatId, 'invites'), body),
    // Inviting shares a private chat with the invited people.
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: chatsKeys.chat(chatId), exact: true }),
        queryClient.invalidateQueries({ queryKey: chatsKeys.participants(chatId) }),
      ]),
  });
}

/** The people invited to the chat, oldest first. */
export function useParticipants(chatId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: chatsKeys.participants(chatId),
    queryFn: async ({ signal }) =>
      (
        await api.get<z.infer<typeof ParticipantsResponse>>(
          conversationPath(chatId, 'participants'),
          { signal },
        )
      ).participants,
  });
}

/**
 * Takes a participant out (the owner), or the signed-in participant leaves. The chat is read
 * again without waiting, so a leaver can be sent elsewhere before it answers 403.
 */
export function useRemoveParticipant(chatId: string, workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (userId: string) =>
      api.delete<void>(conversationPath(chatId, `participants/${encodeURIComponent(userId)}`)),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: chatsKeys.chat(chatId) });
      void queryClient.invalidateQueries({ queryKey: chatsKeys.lists(workspaceId) });
    },
  });
}
