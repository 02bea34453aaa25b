import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { developmentSubject, mintSessionToken } from '@wap/auth';

/** The repository's root: `npm start` runs from there. */
export const repositoryRoot = join(__dirname, '../../..');
const webBuild = join(repositoryRoot, 'dist/apps/web');

/**
 * How long the platform may take to print its URL, in ms: a first start migrates every
 * service's PGlite schema, which takes half a minute on a busy machine.
 */
export const START_TIMEOUT_MS = 150_000;

export interface RunningPlatform {
  /** The gateway's origin, e.g. http://127.0.0.1:41234, which serves the web app and the API. */
  url: string;
  /**
   * A session cookie (`session=<token>`) for this email, signed with the secret the platform
   * generated into its data folder, as `npm run dev:session` signs one. A negative
   * `expiresInSec` gives an expired session.
   */
  sessionCookie(
    email: string,
    options?: { platformAdmin?: boolean; expiresInSec?: number },
  ): Promise<string>;
  /** Calls the API directly, for what a test sets up outside the UI (granting credits). */
  api(
    path: string,
    options?: {
      method?: string;
      cookie?: string;
      body?: unknown;
      /** `Authorization: Bearer <token>`, as the browser extension sends it. */
      bearer?: string;
    },
  ): Promise<Response>;
  /** Everything the platform printed, for a failing test's message. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the platform as `npm start` does: the embedded launcher from source, serving the
 * built web app, with its own data folder and port. `env` adds settings such as `LLM_BASE_URL`
 * and `LLM_MODEL` (pointing at `startChatCompletionsProvider()` of `@wap/testing`).
 */
export async function startPlatform(env: Record<string, string> = {}): Promise<RunningPlatform> {
  buildWebAppIfMissing();
  const dataDir = mkdtempSync(join(tmpdir(), 'wap-web-e2e-'));
  // A copy of its own: a build started meanwhile rewrites dist/apps/web under a running test.
  const webDistDir = join(dataDir, 'web');
  cpSync(webBuild, webDistDir, { recursive: true });
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/embedded/src/main.ts'], {
    cwd: repositoryRoot,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      DATA_DIR: dataDir,
      WEB_DIST_DIR: webDistDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      // As `npm start` runs it: the development sign-in on, on this machine only. The browser
      // talks plain http, as PUBLIC_BASE_URL's default says, so the cookie is not Secure.
      DEV_SIGN_IN: 'on',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const started = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the platform did not start in ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      // The URL's line, and the next: "Open <url>/ in a browser" when the web app is served.
      const match = /Platform running at (http:\/\/\S+)\n(.*)\n/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        if (match[2]?.startsWith('Open ')) resolve(match[1]);
        else reject(new Error(`the platform started without the web app:\n${output}`));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the platform exited (${String(code)}) before starting:\n${output}`));
    });
  });
  let url: string;
  try {
    url = await started;
  } catch (error) {
    // A platform that did not start is stopped here: the test has nothing to stop.
    await stop();
    throw error;
  }
  const sessionSecret = readFileSync(join(dataDir, 'session-secret'), 'utf8').trim();

  return {
    url,
    output: () => output,
    sessionCookie: async (email, options = {}) =>
      `session=${await mintSessionToken({
        secret: sessionSecret,
        sub: developmentSubject(email),
        email,
        name: email.split('@')[0] ?? email,
        platformAdmin: options.platformAdmin,
        expiresInSec: options.expiresInSec,
      })}`,
    api: (path, options = {}) =>
      fetch(`${url}${path}`, {
        method: options.method ?? 'GET',
        headers: {
          ...(options.cookie ? { cookie: options.cookie } : {}),
          ...(options.bearer ? { authorization: `Bearer ${options.bearer}` } : {}),
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      }),
    stop,
  };
}

/** `npm start` builds the web app first; a test run started some other way does it here once. */
function buildWebAppIfMissing(): void {
  if (existsSync(join(webBuild, 'index.html'))) return;
  const vite = join(repositoryRoot, 'node_modules/vite/bin/vite.js');
  const result = spawnSync(
    process.execPath,
    [vite, 'build', '--config', 'apps/web/vite.config.mts', '--logLevel', 'warn'],
    { cwd: repositoryRoot, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('building the web app failed');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
