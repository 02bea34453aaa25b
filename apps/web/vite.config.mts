import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';
import { firstPageBudget } from './build/first-page-budget.mjs';

const projectRoot = fileURLToPath(new URL('.', import.meta.url));

/**
 * `nx run web:serve` answers the client itself (`/`, `/app/...`, its sources and Vite's own
 * `/@...` and `/node_modules/...` paths) and forwards every other path, the API's, to the
 * gateway that `npm start` runs, so the page and the API share one origin as in production.
 */
const GATEWAY_URL = 'http://localhost:3000';
const GATEWAY_PATHS = String.raw`^/(?!$|index\.html|app(?:[/?]|$)|@|src/|node_modules/)`;

export default defineConfig({
  root: projectRoot,
  plugins: [react(), firstPageBudget({ maxGzipKiB: 250 })],
  resolve: { tsconfigPaths: true },
  build: {
    outDir: '../../dist/apps/web',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Nothing becomes a data: URL, so the Content-Security-Policy can stay at 'self'.
    assetsInlineLimit: 0,
    rolldownOptions: {
      // The contracts lib's modules only declare schemas and routes: a module the app takes
      // nothing from (workflows, MCP...) is left out of the chunk that imports the lib.
      treeshake: { moduleSideEffects: (id) => !id.includes('/libs/contracts/') },
    },
  },
  server: {
    // A key starting with ^ is a regular expression.
    proxy: { [GATEWAY_PATHS]: GATEWAY_URL },
  },
  test: {
    root: projectRoot,
    include: ['src/**/*.test.ts'],
    environment: 'node',
    reporters: ['default', './build/test-summary-reporter.mts'],
  },
});
