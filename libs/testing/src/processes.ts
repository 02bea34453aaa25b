import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCredentialKey } from '@wap/auth';
import { isBusPrincipal } from '@wap/contracts';
import { createBusCredentials, type BusCredentials } from '@wap/service-runtime';
import { createTestDatabase, type TestDatabase } from './database';
import { startOwnNats } from './nats-servers';

/** The repository's root, where tools/ and the apps' sources are. */
export const repositoryRoot = join(__dirname, '../../..');

export interface RunningProcess {
  child: ChildProcess;
  /** Resolves with the first stdout line that matches. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  output(): string;
  /** Resolves with the exit code (or the signal name) once the process ended on its own. */
  exited: Promise<number | string>;
  /** Sends the signal and resolves with the exit code (or the signal name). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Settings a test process gets unless the test gives its own. */
const PROCESS_DEFAULTS: Record<string, Record<string, string>> = {
  // Tests run several webhook-ingest processes at once: each takes a free port for its door.
  'webhook-ingest': { WEBHOOK_PORT: '0' },
};

/**
 * A spec's own nats-server with authentication on, as production runs it (decision 113): it
 * admits only the platform's principals, each with its own NATS user, permissions and bus keys.
 */
export interface ProcessBus {
  url: string;
  credentials: BusCredentials;
  /** NATS_NKEY_SEED, BUS_SIGNING_KEY and BUS_TRUSTED_KEYS of a service or the gateway. */
  environmentOf(app: string): Record<string, string>;
  stop(): Promise<void>;
}

/** The version in the kids of a ProcessBus's keys (`<principal>:e2e`). */
export const PROCESS_BUS_KEY_VERSION = 'e2e';

/** Starts a ProcessBus; `namespace` is the NATS_NAMESPACE the spec's processes are given. */
export async function startProcessBus(namespace?: string): Promise<ProcessBus> {
  const dir = mkdtempSync(join(tmpdir(), 'wap-process-bus-'));
  const credentials = createBusCredentials(PROCESS_BUS_KEY_VERSION);
  const nats = await startOwnNats({ dir, users: credentials.natsUsers, nodes: 1, namespace });
  await nats.start();
  return {
    url: nats.url,
    credentials,
    environmentOf: (app) => (isBusPrincipal(app) ? credentials.environmentOf(app) : {}),
    stop: async () => {
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs an app's main.ts from source, as `npm start` and the distributed commands do. A service
 * or the gateway connects to `bus` with its own credentials; the embedded runtime needs none.
 * `root` is the tree it runs from: this repository, or a release checked out beside it.
 */
export function runApp(
  app: string,
  env: Record<string, string>,
  bus?: ProcessBus,
  root = repositoryRoot,
): RunningProcess {
  if (isBusPrincipal(app) && !bus) {
    throw new Error(`${app} runs on a ProcessBus: the services admit no unauthenticated bus`);
  }
  const environment = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '',
    ...PROCESS_DEFAULTS[app],
    ...bus?.environmentOf(app),
    ...(bus ? { NATS_URL: bus.url } : {}),
    ...env,
  };
  const args = ['--import', 'tsx', join('apps', app, 'src/main.ts')];
  return runCommand(app, process.execPath, args, environment, root);
}

/**
 * Runs a command in `cwd` (the repository's root) with exactly `env`, in a process group of its
 * own: `stop` signals the whole group, so what `npm` or a shell started stops with it.
 */
export function runCommand(
  label: string,
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd = repositoryRoot,
): RunningProcess {
  const child = spawn(command, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
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
    exited,
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
            new Error(`${label}: no line matching ${pattern} within ${timeoutMs} ms:\n${output}`),
          );
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`${label} exited before printing ${pattern}:\n${output}`));
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
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, signal);
        } catch (error) {
          // The group ended between the check and the signal.
          if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
        }
      }
      return exited;
    },
  };
}

/**
 * The scaffolding of a spec that runs the distributed platform as processes and kills some of
 * them: a database and a ProcessBus of its own, the settings every process shares, and at the
 * end every process killed and both removed.
 */
export interface ProcessCluster {
  database: TestDatabase;
  bus: ProcessBus;
  /**
   * Runs an app with the shared settings and `extra`; stopped with the cluster. `root`: the tree
   * it runs from, when not this repository (a previous release).
   */
  start(app: string, extra?: Record<string, string>, root?: string): RunningProcess;
  /** Resolves once the app's process logged `<name> ready`. */
  ready(child: RunningProcess, name: string): Promise<RegExpMatchArray>;
  /** Kills every process started (SIGKILL), then drops the database and stops the bus. */
  stop(): Promise<void>;
}

export async function startProcessCluster(options: {
  /** The settings every process gets besides the bus, the database and an ephemeral address. */
  env: Record<string, string>;
  /** How long a process may take to log that it is ready. */
  readyTimeoutMs?: number;
}): Promise<ProcessCluster> {
  const namespace = `p${randomBytes(6).toString('hex')}`;
  const database = await createTestDatabase();
  const bus = await startProcessBus(namespace);
  const shared = {
    NATS_NAMESPACE: namespace,
    DATABASE_URL: database.url,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    // The key mcp-registry and workflow-runner seal secrets with; one per cluster, as one per deployment.
    CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey(namespace),
    ...options.env,
  };
  const running: RunningProcess[] = [];
  return {
    database,
    bus,
    start(app, extra = {}, root) {
      const child = runApp(app, { ...shared, ...extra }, bus, root);
      running.push(child);
      return child;
    },
    ready: (child, name) =>
      child.waitForLine(new RegExp(`"msg":"${name} ready"`), options.readyTimeoutMs ?? 60_000),
    async stop() {
      await Promise.all(running.map((child) => child.stop('SIGKILL')));
      await database.drop();
      await bus.stop();
    },
  };
}
