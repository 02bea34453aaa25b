/**
 * The MCP feature's query keys: one factory, so each invalidation names what it means. Servers
 * and tools are per workspace; the tools list is the whole workspace's (spec endpoint 4), and a
 * server page filters it.
 */
export const mcpKeys = {
  all: ['mcp'] as const,
  ofWorkspace: (workspaceId: string) => [...mcpKeys.all, 'workspace', workspaceId] as const,
  servers: (workspaceId: string) => [...mcpKeys.ofWorkspace(workspaceId), 'servers'] as const,
  server: (workspaceId: string, serverId: string) =>
    [...mcpKeys.servers(workspaceId), serverId] as const,
  tools: (workspaceId: string) => [...mcpKeys.ofWorkspace(workspaceId), 'tools'] as const,
  /** The signed-in person's own connected account at one server. */
  account: (workspaceId: string, serverId: string) =>
    [...mcpKeys.server(workspaceId, serverId), 'account'] as const,
};
