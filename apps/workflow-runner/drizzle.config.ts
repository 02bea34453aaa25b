import { defineConfig } from 'drizzle-kit';

// Run from the repository root: npx drizzle-kit generate --config apps/workflow-runner/drizzle.config.ts
export default defineConfig({
  dialect: 'postgresql',
  schema: './apps/workflow-runner/src/db/schema.ts',
  out: './apps/workflow-runner/migrations',
  schemaFilter: ['workflow_runner'],
});
