import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { z } from 'zod';

/** The environment every benchmark reads; only the default duration differs between them. */
export function benchEnvSchema(defaultDurationS: number) {
  return z.object({
    /** Length of each measured run, in seconds. */
    BENCH_DURATION_S: z.coerce.number().positive().default(defaultDurationS),
    /** Concurrent keep-alive connections autocannon holds open. */
    BENCH_CONNECTIONS: z.coerce.number().int().positive().default(64),
    /** NATS server(s) the services and the baselines share. */
    NATS_URL: z.string().default('nats://127.0.0.1:4222'),
    /** PostgreSQL server on which the bench creates (and drops) a database of its own. */
    DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
    /** When set, the gateway and the services write V8 CPU profiles (.cpuprofile) into this folder. */
    BENCH_CPU_PROF_DIR: z.string().optional(),
  });
}

/** The repository root, where nx and the built bundles are. */
export const repoRoot = join(__dirname, '../..');

/** Builds the bundles of the given apps (cached by nx when nothing changed). */
export function buildBundles(projects: readonly string[]): void {
  const { status } = spawnSync(
    'npx',
    ['nx', 'run-many', '-t', 'build', '-p', ...projects, '--outputStyle=static'],
    {
      cwd: repoRoot,
      stdio: 'inherit',
      env: { ...process.env, NX_DAEMON: 'false', NX_TUI: 'false', NX_NO_CLOUD: 'true' },
    },
  );
  if (status !== 0) throw new Error(`building ${projects.join(', ')} failed (exit ${status})`);
}

/** Runs one statement on a short-lived connection. */
export async function sql<Row>(url: string, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as Row[];
  } finally {
    await client.end();
  }
}

/** Creates a database of the bench's own; `onCleanup` receives the step that drops it. */
export async function createDatabase(
  adminUrl: string,
  name: string,
  onCleanup: (step: () => Promise<void>) => void,
): Promise<string> {
  await sql(adminUrl, `CREATE DATABASE "${name}"`);
  onCleanup(async () => {
    await sql(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** autocannon as a promise, with a hook for every response's status and latency. */
export function runAutocannon(
  options: autocannon.Options,
  onResponse?: (statusCode: number, responseTimeMs: number) => void,
): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error: unknown, result) => {
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    });
    if (onResponse) {
      instance.on('response', (_client, statusCode, _bytes, responseTimeMs) =>
        onResponse(statusCode, responseTimeMs),
      );
    }
  });
}

/** The value at `quantile` (0..1) of an ascending list; NaN when empty. */
export function percentile(sorted: readonly number[], quantile: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.max(0, Math.ceil(quantile * sorted.length) - 1)] ?? Number.NaN;
}

/** Registers a step that undoes what the bench just made (a database, streams, processes). */
export type OnCleanup = (step: () => Promise<void>) => void;

/**
 * Runs a bench's `main`. The cleanup steps it registers run once, in the reverse of the order
 * they were registered in, however the bench ends: done, failed, or stopped by SIGINT/SIGTERM.
 */
export function runBench(main: (onCleanup: OnCleanup) => Promise<void>): void {
  const steps: (() => Promise<void>)[] = [];
  let cleaning: Promise<void> | undefined;
  const cleanUp = (): Promise<void> => {
    cleaning ??= (async () => {
      for (const step of [...steps].reverse()) {
        await step().catch((error: unknown) => console.error('cleanup failed:', error));
      }
    })();
    return cleaning;
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: stopping the bench`);
      void cleanUp().then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  void main((step) => steps.push(step))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    })
    .finally(() => cleanUp());
}
