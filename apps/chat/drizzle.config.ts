import { defineConfig } from 'drizzle-kit';

// Run from the repository root: npx drizzle-kit generate --config apps/chat/drizzle.config.ts
export default defineConfig({
  dialect: 'postgresql',
  schema: './apps/chat/src/db/schema.ts',
  out: './apps/chat/migrations',
  schemaFilter: ['chat'],
});
