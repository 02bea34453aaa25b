import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const serviceEntries = [
  '@wap/gateway-service',
  '@wap/storage-service',
  '@wap/chat-service',
  '@wap/mcp-registry-service',
  '@wap/workflow-runner-service',
  '@wap/webhook-ingest-service',
];

export default [
  {
    ignores: [
      '**/dist',
      '**/node_modules',
      '**/tmp',
      '**/data',
      '**/migrations/**',
      // Type-checked by apps/gateway/src/openapi/openapi-document.spec.ts beside the client
      // types it generates from /openapi.json; it exists only there.
      'apps/gateway/openapi-client-check/**',
    ],
  },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          // The embedded launcher composes every service in one process; it is the one project
          // allowed to import the services' entry points (see docs/decisions/0002).
          allow: serviceEntries,
          depConstraints: [
            { sourceTag: 'type:launcher', onlyDependOnLibsWithTags: ['type:service', 'type:lib'] },
            { sourceTag: 'type:service', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:bench', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:tools', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
          ],
        },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false } },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Only the platform adapters talk to NATS, PostgreSQL and PGlite; only the http layers use express.
    files: ['**/*.ts'],
    ignores: [
      'libs/platform/src/**',
      'libs/testing/src/**',
      'bench/**',
      // Starts or finds the NATS and PostgreSQL servers the tests run against.
      'tools/test-services.ts',
      // The cluster test reads the runner's table to match each acknowledged webhook to its runs.
      'tools/cluster-test/**',
      // The security suite attacks the bus as a plain NATS client would.
      'apps/embedded/src/e2e/security.spec.ts',
      // Connects to a server run from the generated configuration, as each principal would.
      'tools/bus-credentials.spec.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@nats-io/*',
                'pg',
                '@electric-sql/pglite',
                'drizzle-orm/node-postgres*',
                'drizzle-orm/pglite*',
              ],
              message: 'Only libs/platform adapters may import NATS, pg or PGlite.',
            },
          ],
          paths: serviceEntries.map((name) => ({
            name,
            message: 'Services never import each other.',
          })),
        },
      ],
    },
  },
  {
    files: [
      'apps/embedded/**/*.ts',
      'bench/**/*.ts',
      'tools/cluster-test/**/*.ts',
      'deploy/**/*.ts',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
  prettier,
];
