/**
 * The workspace feature's query keys: one factory, so an invalidation names exactly what it
 * means (`workspaceKeys.me()` after a workspace is created).
 */
export const workspaceKeys = {
  all: ['workspace'] as const,
  me: () => [...workspaceKeys.all, 'me'] as const,
  signInMethod: () => [...workspaceKeys.all, 'sign-in-method'] as const,
  extensionTokens: () => [...workspaceKeys.all, 'extension-tokens'] as const,
  ofWorkspace: (workspaceId: string) => [...workspaceKeys.all, 'of', workspaceId] as const,
  members: (workspaceId: string) => [...workspaceKeys.ofWorkspace(workspaceId), 'members'] as const,
  notificationSettings: (workspaceId: string) =>
    [...workspaceKeys.ofWorkspace(workspaceId), 'notification-settings'] as const,
  apiKeys: (workspaceId: string) =>
    [...workspaceKeys.ofWorkspace(workspaceId), 'api-keys'] as const,
  credits: (workspaceId: string) => [...workspaceKeys.ofWorkspace(workspaceId), 'credits'] as const,
};
