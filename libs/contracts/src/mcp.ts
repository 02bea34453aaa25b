import { defineRoutes } from './route-spec';

/** The REST routes of mcp-registry, and the platform's own MCP server at POST /mcp. */
export const mcpRoutes = defineRoutes([] as const);
