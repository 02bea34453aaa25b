import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lintMessages } from './lint-probe';
import { projectRoots, repoRoot } from './project-roots';

const RULE = '@nx/enforce-module-boundaries';

/** What the module-boundary rule says of a file holding one import. */
function boundaryMessages(file: string, specifier: string): Promise<string[]> {
  return lintMessages(file, `import * as probe from '${specifier}';\nexport { probe };\n`, RULE);
}

const probe = (root: string) => `${root}/boundary-probe-${process.pid}.ts`;

describe('module boundaries (eslint.config.mjs)', () => {
  jest.setTimeout(120_000);

  it('a lib may not import a service', async () => {
    const messages = await boundaryMessages(probe('libs/testing/src'), '@wap/chat-service');
    // Every service's specs use the libs: Nx may report the cycle first.
    expect(messages.join('\n')).toMatch(
      /^(Imports of apps are forbidden|Circular dependency between "testing" and "chat")/,
    );
  });

  it.each([
    ['a service', probe('apps/chat/src'), '@wap/storage-service'],
    ['the bench', probe('bench'), '@wap/mcp-registry-service'],
    ['the tools', probe('tools'), '@wap/gateway-service'],
    ['the cluster test', probe('tools/cluster-test/src'), '@wap/workflow-runner-service'],
    ['the web app', probe('apps/web/src'), '@wap/chat-service'],
    ['the browser tests', probe('apps/web-e2e/src'), '@wap/gateway-service'],
  ])('%s may not import a service', async (_who, file, specifier) => {
    expect(await boundaryMessages(file, specifier)).toEqual(['Imports of apps are forbidden']);
  });

  it('nor reach into a project by a relative path', async () => {
    const messages = await boundaryMessages(probe('apps/chat/src'), '../../storage/src/service');
    expect(messages.join('\n')).toMatch(/relative or absolute path/);
  });

  it('the launchers may import the services (the rule is not simply always on)', async () => {
    expect(await boundaryMessages(probe('apps/embedded/src'), '@wap/chat-service')).toEqual([]);
    expect(await boundaryMessages(probe('deploy/checks'), '@wap/gateway-service')).toEqual([]);
  });

  it.each([
    ['a service', probe('apps/chat/src'), 'pg'],
    ['a service', probe('apps/workflow-runner/src'), '@nats-io/jetstream'],
    ['a lib other than the platform', probe('libs/contracts/src'), '@nats-io/nats-core'],
    ['a lib other than the platform', probe('libs/http/src'), '@electric-sql/pglite'],
    ['a lib other than the platform', probe('libs/auth/src'), 'drizzle-orm/node-postgres'],
    ['the web app', probe('apps/web/src'), '@nats-io/nats-core'],
  ])(
    '%s reaches NATS, pg and PGlite only through the platform (%s: %s)',
    async (_who, file, specifier) => {
      expect(await boundaryMessages(file, specifier)).toEqual([
        `A project tagged with "drivers:through-platform" is not allowed to import "${specifier}"`,
      ]);
    },
  );

  it('the platform adapters may import the drivers', async () => {
    expect(await boundaryMessages(probe('libs/platform/src'), '@nats-io/nats-core')).toEqual([]);
  });

  it.each([
    [probe('libs/platform/src'), '@nats-io/nats-core/internal', 'type:lib'],
    [probe('libs/platform/src'), '@nats-io/transport-node/lib/node_transport', 'type:lib'],
    [probe('apps/embedded/src'), 'pg/lib/client', 'type:launcher'],
    [probe('bench'), '@modelcontextprotocol/server-everything/dist/index.js', 'type:bench'],
    [probe('apps/chat/src'), 'openai/src/index', 'type:service'],
  ])(
    'no file but the one adapter reaches third-party internals (%s: %s)',
    async (file, specifier, tag) => {
      expect(await boundaryMessages(file, specifier)).toContain(
        `A project tagged with "${tag}" is not allowed to import "${specifier}"`,
      );
    },
  );

  it('every project has a type tag that a constraint names', () => {
    const config = readFileSync(join(repoRoot, 'eslint.config.mjs'), 'utf8');
    const projects = projectRoots();
    expect(projects.length).toBeGreaterThan(20);
    for (const root of projects) {
      const { tags } = JSON.parse(readFileSync(join(repoRoot, root, 'project.json'), 'utf8')) as {
        tags: string[];
      };
      const typeTags = tags.filter((tag) => tag.startsWith('type:'));
      expect({ root, typeTags }).toEqual({ root, typeTags: [expect.any(String)] });
      expect(config).toContain(`'${typeTags[0]}'`);
    }
  });

  it('a service reads the time of day from its clock, not from Date', async () => {
    const file = probe('apps/chat/src');
    expect(
      await lintMessages(file, 'export const at = Date.now();\n', 'no-restricted-properties'),
    ).toEqual(["'Date.now' is restricted from being used. Read the time from the Platform clock."]);
    expect(
      await lintMessages(file, 'export const at = new Date();\n', 'no-restricted-syntax'),
    ).toEqual(['Read the time from the Platform clock.']);
    expect(
      await lintMessages(
        file,
        "export const at = new Date('2026-01-01');\n",
        'no-restricted-syntax',
      ),
    ).toEqual([]);
  });
});
