/**
 * The chats feature's query keys: one factory, so an invalidation names exactly what it means
 * (`chatsKeys.lists(workspaceId)` after a chat is created, starred or archived).
 */
export const chatsKeys = {
  all: ['chats'] as const,
  /** Every list of a workspace (active and archived), to invalidate them together. */
  lists: (workspaceId: string) => [...chatsKeys.all, 'lists', workspaceId] as const,
  list: (workspaceId: string, archived: boolean) =>
    [...chatsKeys.lists(workspaceId), archived ? 'archived' : 'active'] as const,
  chat: (chatId: string) => [...chatsKeys.all, 'chat', chatId] as const,
  messages: (chatId: string) => [...chatsKeys.chat(chatId), 'messages'] as const,
  accessRequests: (chatId: string) => [...chatsKeys.chat(chatId), 'access-requests'] as const,
  participants: (chatId: string) => [...chatsKeys.chat(chatId), 'participants'] as const,
  turn: (requestId: string) => [...chatsKeys.all, 'turn', requestId] as const,
};
