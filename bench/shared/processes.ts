import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateCredentialKey } from '@wap/auth';
import { isBusPrincipal } from '@wap/contracts';
import { createBusCredentials } from '@wap/service-runtime';
import { freePort } from '@wap/testing';

export { freePort };

/** A child process of the bench, stopped with the others when the bench ends. */
export interface BenchProcess {
  name: string;
  pid: number;
  /** Resolves with the first IPC message of the child; rejects if it exits before sending one. */
  firstMessage<T>(): Promise<T>;
  /** Rejects when the child exits, so a wait can be raced against an early crash. */
  exited: Promise<never>;
}

/** How long a child gets to drain after SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * Starts and stops the bench's child processes. Children inherit only PATH and HOME plus what
 * they are given, so the figures do not depend on the caller's shell (OTEL_*, NODE_OPTIONS...).
 */
export function createProcessGroup() {
  const running = new Map<string, ChildProcess>();

  function start(name: string, args: readonly string[], env: Record<string, string>): BenchProcess {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    running.set(name, child);
    const exited = new Promise<never>((_resolve, reject) => {
      child.once('exit', (code, signal) => {
        running.delete(name);
        reject(new Error(`${name} exited (code ${String(code)}, signal ${String(signal)})`));
      });
    });
    // Nobody may be racing against the exit yet; an unobserved rejection must not end the bench.
    exited.catch(() => undefined);
    return {
      name,
      pid: child.pid ?? -1,
      exited,
      firstMessage: <T>() =>
        Promise.race([
          new Promise<T>((resolve) => child.once('message', (message) => resolve(message as T))),
          exited,
        ]),
    };
  }

  async function stopAll(): Promise<void> {
    await Promise.all(
      [...running.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) {
              resolve();
              return;
            }
            const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      ),
    );
  }

  /** Last resort from the synchronous `exit` handler: nothing may outlive the bench. */
  function killAllNow(): void {
    for (const child of running.values()) child.kill('SIGKILL');
  }

  return { start, stopAll, killAllNow };
}

export type ProcessGroup = ReturnType<typeof createProcessGroup>;

/** Polls a /readyz URL until it answers 200, failing fast if the process behind it exits. */
export async function waitUntilReady(
  url: string,
  owner: BenchProcess,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const poll = async (): Promise<void> => {
    while (Date.now() < deadline) {
      const ok = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${owner.name} was not ready at ${url} within ${timeoutMs} ms`);
  };
  await Promise.race([poll(), owner.exited]);
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc (Linux); undefined
 * elsewhere. CPU per request stays meaningful when other work shares the machine, which
 * requests/s and latency do not.
 */
export function cpuTimeMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Pids of the processes whose command name (/proc/<pid>/comm) is `command`: the machine's own
 * servers (nats-server, postgres), which the bench shares rather than starts. Empty off Linux.
 */
export function pidsOfCommand(command: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === command;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Starts the platform's built services, each a `node` process of its own on its bundle in
 * `dist/`, in development mode (production insists on a JWKS URL, which would add an identity
 * provider) and quiet (LOG_LEVEL=warn). With `cpuProfileDir`, each writes a V8 CPU profile.
 */
export function serviceLauncher(
  group: ProcessGroup,
  options: { repoRoot: string; natsUrl: string; namespace: string; cpuProfileDir?: string },
) {
  const profiling = options.cpuProfileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`]
    : [];
  const common = {
    NODE_ENV: 'development',
    NATS_URL: options.natsUrl,
    NATS_NAMESPACE: options.namespace,
    LOG_LEVEL: 'warn',
  };
  // Signed actors on, as in production: each app signs with a key of its own. The bench's NATS is
  // the open server the tests use; NKey authentication costs at connect time only.
  const credentials = createBusCredentials('bench');
  // The services that seal secrets share one key, as a deployment's do (decision 151).
  const sealing = { CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('bench') };
  const sealsSecrets = (app: string) => app === 'mcp-registry' || app === 'workflow-runner';
  const start = (name: string, app: string, env: Record<string, string>) => {
    if (!isBusPrincipal(app)) throw new Error(`${app} is not a bus principal`);
    const { BUS_SIGNING_KEY, BUS_TRUSTED_KEYS } = credentials.environmentOf(app);
    return group.start(
      name,
      [...profiling, join(options.repoRoot, `dist/apps/${app}/src/main.js`)],
      {
        ...common,
        BUS_SIGNING_KEY,
        BUS_TRUSTED_KEYS,
        ...(sealsSecrets(app) ? sealing : {}),
        ...env,
      },
    );
  };

  return {
    /** A service (`app` is its folder under apps/), ready once its /readyz answers. */
    async service(name: string, app: string, env: Record<string, string>): Promise<BenchProcess> {
      const healthPort = await freePort();
      const child = start(name, app, { ...env, HEALTH_PORT: String(healthPort) });
      await waitUntilReady(`http://127.0.0.1:${healthPort}/readyz`, child);
      return child;
    },
    /** The gateway on a free port, signing sessions with `sessionSecret`; ready when it answers. */
    async gateway(
      sessionSecret: string,
      env: Record<string, string> = {},
    ): Promise<{ url: string; process: BenchProcess }> {
      const port = await freePort();
      const child = start('gateway', 'gateway', {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        SESSION_JWT_SECRET: sessionSecret,
      });
      const url = `http://127.0.0.1:${port}`;
      await waitUntilReady(`${url}/readyz`, child);
      return { url, process: child };
    },
    /**
     * The embedded runtime (`npm start`: every service in one process on PGlite and the
     * in-process bus) on a free port, keeping its state in `dataDir`; ready when it answers.
     */
    async embedded(
      sessionSecret: string,
      dataDir: string,
      env: Record<string, string> = {},
    ): Promise<{ url: string; process: BenchProcess }> {
      const port = await freePort();
      const child = group.start(
        'embedded',
        [...profiling, join(options.repoRoot, 'dist/apps/embedded/src/main.js')],
        {
          NODE_ENV: 'development',
          LOG_LEVEL: 'warn',
          ...env,
          HOST: '127.0.0.1',
          PORT: String(port),
          DATA_DIR: dataDir,
          SESSION_JWT_SECRET: sessionSecret,
        },
      );
      const url = `http://127.0.0.1:${port}`;
      await waitUntilReady(`${url}/readyz`, child, 120_000);
      return { url, process: child };
    },
  };
}
