import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Module boundaries, by the tags in each project.json:
// - type:launcher (the embedded runtime, the deploy checks) may use services and libs;
//   type:service, type:app (the web app), type:e2e, type:bench and type:tools only libs;
//   type:lib only libs, and every lib is scope:shared.
// - drivers:through-platform: NATS, pg and PGlite only through @wap/platform's adapters.
// - No project reaches a third-party package's unpublished files (lib/, dist/, build/, src/,
//   nats-core's `internal`) except the one adapter below that must, and says why.
// tools/module-boundaries.spec.ts proves each rule fires with a throwaway import.
const DRIVERS = [
  '@nats-io/*',
  'pg',
  '@electric-sql/pglite',
  'drizzle-orm/node-postgres*',
  'drizzle-orm/pglite*',
];
const THIRD_PARTY_INTERNALS = ['*/lib/*', '*/dist/*', '*/build/*', '*/src/*', '*/internal'];

function depConstraints({ internals = 'banned' } = {}) {
  const banned = internals === 'banned' ? THIRD_PARTY_INTERNALS : [];
  const onlyLibs = ['type:lib'];
  return [
    {
      sourceTag: 'type:launcher',
      onlyDependOnLibsWithTags: ['type:service', 'type:lib'],
      bannedExternalImports: banned,
    },
    ...['type:service', 'type:app', 'type:e2e', 'type:bench', 'type:tools', 'type:lib'].map(
      (sourceTag) => ({
        sourceTag,
        onlyDependOnLibsWithTags: onlyLibs,
        bannedExternalImports: banned,
      }),
    ),
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    { sourceTag: 'drivers:through-platform', bannedExternalImports: DRIVERS },
  ];
}

function moduleBoundaries(options) {
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      depConstraints: depConstraints(options),
      ...(options?.allow ? { allow: options.allow } : {}),
    },
  ];
}

const projectRoots = [
  ...['apps', 'libs'].flatMap((parent) =>
    readdirSync(join(import.meta.dirname, parent)).map((name) => `${parent}/${name}`),
  ),
  'bench',
  'deploy',
  'tools',
  'tools/cluster-test',
].filter((root) => existsSync(join(import.meta.dirname, root, 'project.json')));

function projectsTagged(tag) {
  return projectRoots.filter((root) =>
    JSON.parse(
      readFileSync(join(import.meta.dirname, root, 'project.json'), 'utf8'),
    ).tags?.includes(tag),
  );
}

// Nx reports any import of an application project (noImportsOfApps) whatever the tags say, and
// the services are applications. Their entry points are allowed in the projects tagged
// type:launcher only, and nowhere else.
const serviceEntries = [
  '@wap/gateway-service',
  '@wap/storage-service',
  '@wap/chat-service',
  '@wap/mcp-registry-service',
  '@wap/workflow-runner-service',
  '@wap/webhook-ingest-service',
];
const launcherFiles = projectsTagged('type:launcher').map((root) => `${root}/**/*.ts`);

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
    files: ['**/*.ts', '**/*.tsx', '**/*.mts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries() },
  },
  {
    files: launcherFiles,
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ allow: serviceEntries }) },
  },
  {
    // A service reads the time of day from its Platform's clock (tests move it by hand), and
    // measures waits with performance.now().
    files: ['apps/*/src/**/*.ts'],
    ignores: [
      'apps/web/**',
      'apps/web-e2e/**',
      'apps/embedded/src/e2e/**',
      '**/*.spec.ts',
      '**/testing/**',
    ],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read the time from the Platform clock.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Read the time from the Platform clock.',
        },
      ],
    },
  },
  {
    // An exemption that no longer exempts anything is an error, not a leftover.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    // A function one can hold in one's head: 80 lines at most, blank lines and comments not
    // counted. A longer one says why where it starts, as `// eslint-disable-next-line
    // max-lines-per-function -- <reason>`; the rule still measures each function inside it, and
    // tools/function-length.spec.ts refuses an exemption without a reason. Production code only:
    // not specs, test helpers, browser tests, benches or tools. The patterns are relative so
    // that apps/web's own config, which extends this one, applies them to its sources too.
    files: ['**/src/**/*.ts', '**/src/**/*.tsx'],
    ignores: [
      'bench/**',
      'tools/**',
      'deploy/**',
      'apps/web-e2e/**',
      '**/e2e/**',
      '**/testing/**',
      '**/*.spec.ts',
      '**/*.test.ts',
      '**/*.test.tsx',
    ],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The one adapter of third-party internals (tested against the installed version in its
    // spec): nats.js publishes no way to coalesce writes or to skip its cancellation errors.
    files: ['libs/platform/src/distributed/nats-connection.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ internals: 'allowed' }) },
  },
  {
    // Ajv publishes its JSON Schema 2020-12 validator at this path (ajv.js.org/json-schema.html).
    files: ['libs/testing/src/openapi-conformance.ts'],
    rules: { '@nx/enforce-module-boundaries': moduleBoundaries({ internals: 'allowed' }) },
  },
  prettier,
];
