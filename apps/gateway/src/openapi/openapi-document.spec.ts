import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { ROUTES } from '@wap/contracts';
import { buildOpenApiDocument } from './openapi';

const run = promisify(execFile);
const repositoryRoot = resolve(__dirname, '../../../..');
const bin = (name: string) => join(repositoryRoot, 'node_modules/.bin', name);

/** Operations that never answer 2XX: stateless MCP has no server stream and no sessions. */
const ONLY_405 = new Set(['GET /mcp', 'DELETE /mcp']);

type Operation = { responses: Record<string, unknown>; requestBody?: { required: boolean } };
type Paths = Record<string, Record<string, Operation>>;

describe('/openapi.json as clients and linters read it', () => {
  const document = buildOpenApiDocument(ROUTES, { serverUrl: 'https://assistant.example.org' });
  const paths = document['paths'] as Paths;
  let folder: string;
  let documentFile: string;

  beforeAll(() => {
    // Inside the repository (git-ignored tmp/), so that the check resolves its packages.
    mkdirSync(join(repositoryRoot, 'tmp'), { recursive: true });
    folder = mkdtempSync(join(repositoryRoot, 'tmp', 'openapi-'));
    documentFile = join(folder, 'openapi.json');
    writeFileSync(documentFile, JSON.stringify(document, null, 2));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  test("Redocly's recommended rules pass, strictly (redocly.yaml says which two are off and why)", async () => {
    const lint = await run(bin('redocly'), ['lint', documentFile, '--format', 'stylish'], {
      cwd: repositoryRoot,
      // No usage reports or update checks leave the machine.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    // recommended-strict makes every finding an error: a clean exit is a clean document.
    expect(lint.stdout + lint.stderr).toContain('Your API description is valid');
  }, 60_000);

  test('every operation but the two 405-only MCP methods declares a 2XX answer', () => {
    const without = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => !Object.keys(operation.responses).some((s) => /^2/.test(s)))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(without.sort()).toEqual([...ONLY_405].sort());
  });

  test('"No request body" routes accept none; JSON routes declare 413 and 415', () => {
    expect(paths['/mcp-registry/{id}/refresh']?.['post']?.requestBody?.required).toBe(false);
    expect(paths['/workflows/{id}/run']?.['post']?.requestBody?.required).toBe(false);
    expect(paths['/webhooks/{webhookId}']?.['post']?.requestBody?.required).toBe(true);
    expect(Object.keys(paths['/workspaces']?.['post']?.responses ?? {})).toEqual(
      expect.arrayContaining(['413', '415']),
    );
  });

  test("a client generated from it (openapi-typescript) type-checks against the web app's reads", async () => {
    const generated = join(folder, 'generated.d.ts');
    await run(bin('openapi-typescript'), [documentFile, '-o', generated], {
      cwd: repositoryRoot,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    });
    copyFileSync(
      join(repositoryRoot, 'apps/gateway/openapi-client-check/web-app-calls.ts'),
      join(folder, 'web-app-calls.ts'),
    );
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        extends: join(repositoryRoot, 'tsconfig.base.json'),
        compilerOptions: { noEmit: true, types: ['node'] },
        files: ['web-app-calls.ts'],
      }),
    );
    await run(bin('tsc'), ['-p', join(folder, 'tsconfig.json')], { cwd: folder }).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the generated client disagrees with the web app:\n${error.stdout ?? ''}`);
      },
    );
  }, 120_000);
});
