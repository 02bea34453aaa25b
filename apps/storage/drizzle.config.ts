import { defineConfig } from 'drizzle-kit';

// Run from the repository root: npx drizzle-kit generate --config apps/storage/drizzle.config.ts
export default defineConfig({
  dialect: 'postgresql',
  schema: './apps/storage/src/db/schema.ts',
  out: './apps/storage/migrations',
  schemaFilter: ['storage'],
});
