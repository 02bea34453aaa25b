import type { Feature } from '../../lib/routing';

/**
 * Sign-in, the person's workspaces and a workspace's own settings. Every page is loaded
 * lazily: only this list and the shell pieces are in the first page's JavaScript.
 */
export const workspaceFeature: Feature = {
  publicRoutes: [
    {
      path: 'sign-in',
      lazy: async () => ({ Component: (await import('./sign-in/sign-in-page')).SignInPage }),
    },
  ],
  accountRoutes: [
    {
      index: true,
      lazy: async () => ({ Component: (await import('./home/home-page')).HomePage }),
    },
    {
      path: 'workspaces/new',
      lazy: async () => ({
        Component: (await import('./create-workspace/create-workspace-page')).CreateWorkspacePage,
      }),
    },
    {
      path: 'admin/credits',
      lazy: async () => ({
        Component: (await import('./admin/grant-credits-page')).GrantCreditsPage,
      }),
    },
    {
      path: 'extensions',
      lazy: async () => ({
        Component: (await import('./extensions/extensions-page')).ExtensionsPage,
      }),
    },
  ],
  workspaceRoutes: [
    {
      index: true,
      lazy: async () => ({ Component: (await import('./overview/overview-page')).OverviewPage }),
    },
    {
      path: 'members',
      lazy: async () => ({ Component: (await import('./members/members-page')).MembersPage }),
    },
    {
      path: 'settings',
      lazy: async () => ({ Component: (await import('./settings/settings-page')).SettingsPage }),
    },
    {
      path: 'api-keys',
      lazy: async () => ({ Component: (await import('./api-keys/api-keys-page')).ApiKeysPage }),
    },
  ],
  navEntries: [
    { label: 'Overview', path: '' },
    { label: 'Members', path: 'members' },
    { label: 'Settings', path: 'settings' },
    { label: 'API keys', path: 'api-keys' },
  ],
};
