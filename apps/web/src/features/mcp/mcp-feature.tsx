import type { Feature } from '../../lib/routing';

/**
 * MCP servers and their tools: register (spec endpoint 2), refresh (endpoint 3), the tools with
 * their switches (endpoint 4), and each person's own connected account. Every page is loaded
 * lazily.
 */
export const mcpFeature: Feature = {
  accountRoutes: [
    {
      // MCP_ACCOUNT_CALLBACK_PATH: authorization servers send people back here.
      path: 'connected-accounts/callback',
      lazy: async () => ({
        Component: (await import('./connected-accounts/callback-page'))
          .ConnectedAccountCallbackPage,
      }),
    },
  ],
  workspaceRoutes: [
    {
      path: 'mcp',
      lazy: async () => ({
        Component: (await import('./list/mcp-servers-page')).McpServersPage,
      }),
    },
    {
      path: 'mcp/new',
      lazy: async () => ({
        Component: (await import('./register/register-server-page')).RegisterServerPage,
      }),
    },
    {
      path: 'mcp/:serverId',
      lazy: async () => ({
        Component: (await import('./server/mcp-server-page')).McpServerPage,
      }),
    },
    {
      path: 'mcp/:serverId/edit',
      lazy: async () => ({
        Component: (await import('./edit/edit-server-page')).EditServerPage,
      }),
    },
  ],
  navEntries: [{ label: 'MCP servers', path: 'mcp' }],
};
