import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  brokenLinks,
  CODE_WALKS,
  headingSlugs,
  linksOf,
  markdownFiles,
  missingCodePaths,
} from './markdown-links';

const repositoryRoot = join(__dirname, '..');

describe('Markdown links of the repository', () => {
  test('every relative link resolves to a file or folder inside the repository', () => {
    expect(brokenLinks(repositoryRoot)).toEqual([]);
  });

  test.each(CODE_WALKS)('every repository path %s names in code exists', (file) => {
    expect(missingCodePaths(repositoryRoot, file)).toEqual([]);
  });

  test('the README, the architecture and the specification are among the files checked', () => {
    expect(markdownFiles(repositoryRoot)).toEqual(
      expect.arrayContaining([
        'README.md',
        'ARCHITECTURE.md',
        'docs/errors.md',
        'docs/spec/interface-spec.md',
        'docs/spec/supporting-api.md',
      ]),
    );
  });
});

describe('brokenLinks', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'markdown-links-'));
    mkdirSync(join(root, 'docs', 'decisions'), { recursive: true });
    writeFileSync(join(root, 'docs', 'errors.md'), '# Errors\n');
    mkdirSync(join(root, 'node_modules', 'some-package'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'some-package', 'README.md'), '[gone](nowhere.md)\n');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('reports missing files and paths outside the repository, with their lines', () => {
    writeFileSync(
      join(root, 'README.md'),
      [
        '# Title',
        'See [errors](docs/errors.md#codes), [decisions](docs/decisions/) and [web](https://example.com).',
        'The spec is [here](docs/spec/interface-spec.md).',
        'The design was `../shared/ARCHITECTURE.md`.',
        '```sh',
        'cat [not](a-link.md)',
        '```',
        '[ref]: ./docs/missing.md',
        '[top](#title) [errors](docs/errors.md#errors) [gone](#nowhere)',
      ].join('\n'),
    );
    writeFileSync(join(root, 'docs', 'decisions', '0001-a.md'), '[back](../../README.md)\n');

    expect(brokenLinks(root)).toEqual([
      { file: 'README.md', line: 2, target: 'docs/errors.md#codes', reason: 'no such heading' },
      { file: 'README.md', line: 3, target: 'docs/spec/interface-spec.md', reason: 'missing' },
      {
        file: 'README.md',
        line: 4,
        target: '../shared/ARCHITECTURE.md',
        reason: 'outside the repository',
      },
      { file: 'README.md', line: 8, target: './docs/missing.md', reason: 'missing' },
      { file: 'README.md', line: 9, target: '#nowhere', reason: 'no such heading' },
    ]);
  });

  test('an absolute path is outside the repository even when it names a file inside it', () => {
    const target = join(root, 'docs', 'errors.md');
    writeFileSync(join(root, 'README.md'), `[errors](${target})\n`);
    expect(brokenLinks(root)).toEqual([
      { file: 'README.md', line: 1, target, reason: 'outside the repository' },
    ]);
  });

  test('images and anchors are checked; external addresses are not', () => {
    expect(
      linksOf('![shot](docs/screenshots/a.png "Home") [mail](mailto:a@b.c) [x](#y) [w](//cdn/x)'),
    ).toEqual([
      { line: 1, target: 'docs/screenshots/a.png' },
      { line: 1, target: '#y' },
    ]);
  });

  test('headings get the anchors GitHub gives them', () => {
    writeFileSync(
      join(root, 'spec.md'),
      [
        '# Interface Specification',
        '### 11. Custom webhook trigger (inbound)',
        '### Access-denied body (chat)',
        '```md',
        '# not a heading',
        '```',
        '## Errors',
        '## Errors',
      ].join('\n'),
    );
    expect([...headingSlugs(join(root, 'spec.md'))]).toEqual([
      'interface-specification',
      '11-custom-webhook-trigger-inbound',
      'access-denied-body-chat',
      'errors',
      'errors-1',
    ]);
  });

  test('missingCodePaths reports repository paths in code spans that do not exist', () => {
    writeFileSync(
      join(root, 'ARCHITECTURE.md'),
      [
        'The registry is `docs/errors.md`, the runner `apps/chat/src/turns/runner.ts`.',
        'Each service has `apps/<service>/src/main.ts`; MCP pages `tools/list`? No: `docs/decisions`.',
        'Imitate `docs/errors.md:1`, not `docs/errors.md:3`.',
      ].join('\n'),
    );
    expect(missingCodePaths(root, 'ARCHITECTURE.md')).toEqual([
      { line: 1, path: 'apps/chat/src/turns/runner.ts' },
      { line: 2, path: 'tools/list' },
      { line: 3, path: 'docs/errors.md:3' },
    ]);
  });
});
