import type { Feature } from '../../lib/routing';

/**
 * Chats with the assistant: the list, a chat that streams the reply, and its sharing. Every
 * page is loaded lazily, so none of it is in the first page's JavaScript.
 */
export const chatsFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'chats',
      lazy: async () => ({ Component: (await import('./list/chats-page')).ChatsPage }),
    },
    {
      path: 'chats/:chatId',
      lazy: async () => ({ Component: (await import('./chat/chat-page')).ChatPage }),
    },
    {
      path: 'chats/:chatId/sharing',
      lazy: async () => ({ Component: (await import('./sharing/sharing-page')).SharingPage }),
    },
  ],
  navEntries: [{ label: 'Chats', path: 'chats' }],
};
