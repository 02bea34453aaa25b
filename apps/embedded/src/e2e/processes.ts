import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { isBusPrincipal } from '@wap/contracts';
import { busKeyEnvironment } from '@wap/testing';

/** The repository's root, where tools/ and the apps' sources are. */
export const repositoryRoot = join(__dirname, '../../../..');

export interface RunningProcess {
  child: ChildProcess;
  /** Resolves with the first stdout line that matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  output(): string;
  /** Sends the signal and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Settings a test process gets unless the test gives its own. */
const PROCESS_DEFAULTS: Record<string, Record<string, string>> = {
  // Tests run several webhook-ingest processes at once: each takes a free port for its door.
  'webhook-ingest': { WEBHOOK_PORT: '0' },
};

/**
 * Runs an app's main.ts from source, as `npm start` and the distributed commands do. A service
 * or the gateway gets its bus keys from the test key set, which this process's stack shares.
 */
export function runApp(app: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join('apps', app, 'src/main.ts')], {
    cwd: repositoryRoot,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      ...PROCESS_DEFAULTS[app],
      ...(isBusPrincipal(app) ? busKeyEnvironment(app) : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });

  return {
    child,
    output: () => output,
    waitForLine: (pattern, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            cleanup();
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`${app}: no line matching ${pattern} within ${timeoutMs} ms:\n${output}`),
          );
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`${app} exited before printing ${pattern}:\n${output}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
