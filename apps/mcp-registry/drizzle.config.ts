import { defineConfig } from 'drizzle-kit';

// Run from the repository root: npx drizzle-kit generate --config apps/mcp-registry/drizzle.config.ts
export default defineConfig({
  dialect: 'postgresql',
  schema: './apps/mcp-registry/src/db/schema.ts',
  out: './apps/mcp-registry/migrations',
  schemaFilter: ['mcp_registry'],
});
