// The platform as separate processes: two replicas of every service, each on its built bundle in
// dist/, each on a fixed port so that a replica started again after `kill -9` answers where its
// predecessor did.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@wap/contracts';
import type { BusCredentials } from '@wap/service-runtime';
import { freePort } from '@wap/testing';

export const APPS = ['gateway', ...SERVICE_NAMES] as const;
export type App = (typeof APPS)[number];

/** One service process, restartable; its output goes to `<logDir>/<name>.log` across restarts. */
export interface Replica {
  name: string;
  app: App;
  /** `http://127.0.0.1:<port>`: the gateway's API, or a service's health server. */
  url: string;
  start(): void;
  /** SIGKILL, as the kernel's OOM killer or a lost node would. */
  kill9(): Promise<void>;
  /** SIGTERM, then SIGKILL after a grace period, for the end of the test. */
  stop(): Promise<void>;
  isReady(): Promise<boolean>;
  /** SIGKILL without waiting, from the synchronous `exit` handler: nothing outlives the test. */
  killNow(): void;
  /** Exits the test did not cause, with their code or signal. */
  unexpectedExits: string[];
  /** The last lines of its log, to print when a target misses. */
  logTail(lines: number): string;
}

const STOP_GRACE_MS = 10_000;

export async function createReplicas(options: {
  repoRoot: string;
  logDir: string;
  /** Environment every process gets (NATS, PostgreSQL, namespace, secrets). */
  common: Record<string, string>;
  /** Each app's bus signing key and NATS user. */
  credentials: BusCredentials;
  /** What one app's processes get besides. */
  perApp: Partial<Record<App, Record<string, string>>>;
}): Promise<Replica[]> {
  const replicas: Replica[] = [];
  for (const app of APPS) {
    for (const index of [1, 2]) {
      const port = await freePort();
      const portEnv: Record<string, string> =
        app === 'gateway'
          ? { PORT: String(port), HOST: '127.0.0.1' }
          : { HEALTH_PORT: String(port) };
      replicas.push(
        replica({
          name: `${app}-${index}`,
          app,
          port,
          script: join(options.repoRoot, `dist/apps/${app}/src/main.js`),
          logFile: join(options.logDir, `${app}-${index}.log`),
          env: {
            ...options.common,
            ...options.credentials.environmentOf(app),
            ...options.perApp[app],
            ...portEnv,
          },
        }),
      );
    }
  }
  return replicas;
}

function replica(spec: {
  name: string;
  app: App;
  port: number;
  script: string;
  logFile: string;
  env: Record<string, string>;
}): Replica {
  let child: ChildProcess | undefined;
  let expectingExit = false;
  const unexpectedExits: string[] = [];
  const url = `http://127.0.0.1:${spec.port}`;

  const waitForExit = (running: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (running.exitCode !== null || running.signalCode !== null) resolve();
      else running.once('exit', () => resolve());
    });

  return {
    name: spec.name,
    app: spec.app,
    url,
    unexpectedExits,
    start() {
      const log = openSync(spec.logFile, 'a');
      expectingExit = false;
      const started = spawn(process.execPath, [spec.script], {
        // Only PATH and HOME from the caller: the results do not depend on its shell.
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...spec.env },
        stdio: ['ignore', log, log],
      });
      closeSync(log);
      started.once('exit', (code, signal) => {
        if (!expectingExit) unexpectedExits.push(`exit code ${code}, signal ${signal}`);
      });
      child = started;
    },
    async kill9() {
      if (!child) return;
      expectingExit = true;
      child.kill('SIGKILL');
      await waitForExit(child);
    },
    async stop() {
      if (!child) return;
      const running = child;
      expectingExit = true;
      const kill = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
      running.kill('SIGTERM');
      await waitForExit(running);
      clearTimeout(kill);
    },
    killNow() {
      expectingExit = true;
      child?.kill('SIGKILL');
    },
    async isReady() {
      if (!child || child.exitCode !== null || child.signalCode !== null) return false;
      return fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status === 200,
        () => false,
      );
    },
    logTail(lines) {
      try {
        return readFileSync(spec.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
  };
}
