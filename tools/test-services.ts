// The NATS (with JetStream) and PostgreSQL servers `npm test` runs the tests against: the ones
// already answering at NATS_URL / DATABASE_URL, else servers started from the local binaries in
// a temp dir, else containers started with testcontainers (docs/decisions/0110).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Client } from 'pg';

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Where one server comes from. */
export type ServerSource =
  | { kind: 'running'; url: string }
  | { kind: 'binaries'; path: string }
  | { kind: 'container'; image: string };

export interface TestServicesPlan {
  nats: ServerSource;
  postgres: ServerSource;
}

/** What the machine offers; injected so that every branch of the choice is tested. */
export interface Probes {
  /** Whether a NATS server with JetStream answers at `url`. */
  natsAnswers(url: string): Promise<boolean>;
  /** Whether PostgreSQL accepts a connection and a query at `url`. */
  postgresAnswers(url: string): Promise<boolean>;
  /** The `nats-server` executable, if installed. */
  natsServerBinary(): string | undefined;
  /** The folder holding `initdb` and `pg_ctl`, if installed and usable by this user. */
  postgresBinaries(): string | undefined;
  /** Whether testcontainers finds a container engine (Docker, Podman...). */
  containerRuntime(): Promise<boolean>;
}

export const NATS_IMAGE = 'nats:2';
export const POSTGRES_IMAGE = 'postgres:15';

/**
 * Picks, for NATS and for PostgreSQL separately, the first source that works: the server
 * already answering at the URL, the local binaries, or a container. Throws, naming what to
 * install, when a server has none.
 */
export async function chooseTestServices(
  env: { NATS_URL?: string; DATABASE_URL?: string },
  probes: Probes,
): Promise<TestServicesPlan> {
  let containers: Promise<boolean> | undefined;
  const containerRuntime = (): Promise<boolean> => (containers ??= probes.containerRuntime());

  const natsUrl = env.NATS_URL || DEFAULT_NATS_URL;
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const [natsRunning, postgresRunning] = await Promise.all([
    probes.natsAnswers(natsUrl),
    probes.postgresAnswers(databaseUrl),
  ]);

  const choose = async (
    name: string,
    url: string,
    running: boolean,
    binary: string | undefined,
    image: string,
    install: string,
  ): Promise<ServerSource> => {
    if (running) return { kind: 'running', url };
    if (binary) return { kind: 'binaries', path: binary };
    if (await containerRuntime()) return { kind: 'container', image };
    throw new Error(
      `no ${name} for the tests: nothing answers at ${url}, ${install} is not installed, ` +
        'and no container engine is reachable',
    );
  };
  return {
    nats: await choose(
      'NATS with JetStream',
      natsUrl,
      natsRunning,
      natsRunning ? undefined : probes.natsServerBinary(),
      NATS_IMAGE,
      'nats-server',
    ),
    postgres: await choose(
      'PostgreSQL',
      databaseUrl,
      postgresRunning,
      postgresRunning ? undefined : probes.postgresBinaries(),
      POSTGRES_IMAGE,
      "PostgreSQL's initdb and pg_ctl",
    ),
  };
}

/** Servers ready for the tests: the URLs to export, what was used, and how to stop it. */
export interface StartedTestServices {
  env: { NATS_URL: string; DATABASE_URL: string };
  /** One line per server saying which source was used. */
  description: string[];
  /** Stops and removes what was started; servers that were already running are left alone. */
  stop(): Promise<void>;
}

/** Starts what `plan` asks for. */
export async function startTestServices(
  plan: TestServicesPlan,
  probes: Pick<Probes, 'natsAnswers' | 'postgresAnswers'>,
): Promise<StartedTestServices> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async (): Promise<void> => {
    for (const stopOne of stops.reverse()) await stopOne();
  };
  try {
    const nats = await startNats(plan.nats, probes, stops);
    const postgres = await startPostgres(plan.postgres, probes, stops);
    return {
      env: { NATS_URL: nats.url, DATABASE_URL: postgres.url },
      description: [`NATS: ${nats.description}`, `PostgreSQL: ${postgres.description}`],
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Started {
  url: string;
  description: string;
}

async function startNats(
  source: ServerSource,
  probes: Pick<Probes, 'natsAnswers'>,
  stops: (() => Promise<void>)[],
): Promise<Started> {
  switch (source.kind) {
    case 'running':
      return {
        url: source.url,
        description: `the server already running at ${redactPassword(source.url)}`,
      };
    case 'binaries': {
      const dir = mkdtempSync(join(tmpdir(), 'wap-test-nats-'));
      const port = await freePort();
      const child = spawn(
        source.path,
        ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir, '-l', join(dir, 'nats.log')],
        { stdio: 'ignore' },
      );
      stops.push(async () => {
        await terminate(child);
        rmSync(dir, { recursive: true, force: true });
      });
      const url = `nats://127.0.0.1:${port}`;
      await waitUntil(() => probes.natsAnswers(url), `nats-server (log: ${dir}/nats.log)`, child);
      return { url, description: `${source.path} started on ${url}, JetStream in ${dir}` };
    }
    case 'container': {
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(source.image)
        .withCommand(['-js'])
        .withExposedPorts(4222)
        .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
        .start();
      stops.push(async () => {
        await container.stop();
      });
      const url = `nats://${container.getHost()}:${container.getMappedPort(4222)}`;
      return { url, description: `container ${source.image} (testcontainers) at ${url}` };
    }
  }
}

async function startPostgres(
  source: ServerSource,
  probes: Pick<Probes, 'postgresAnswers'>,
  stops: (() => Promise<void>)[],
): Promise<Started> {
  switch (source.kind) {
    case 'running':
      return {
        url: source.url,
        description: `the server already running at ${redactPassword(source.url)}`,
      };
    case 'binaries': {
      const dir = mkdtempSync(join(tmpdir(), 'wap-test-pg-'));
      const data = join(dir, 'data');
      const port = await freePort();
      // initdb refuses to run as root: as root the cluster belongs to the `postgres` user.
      const asRoot = process.getuid?.() === 0;
      if (asRoot) chownSync(dir, postgresUid(), postgresGid());
      const runPg = (command: string, args: string[]): void => {
        const result = asRoot
          ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', shellLine(command, args)], {
              encoding: 'utf8',
            })
          : spawnSync(command, args, { encoding: 'utf8' });
        if (result.status !== 0) {
          throw new Error(`${command} failed: ${(result.stderr || result.stdout || '').trim()}`);
        }
      };
      const pgCtl = join(source.path, 'pg_ctl');
      stops.push(async () => {
        if (existsSync(join(data, 'postmaster.pid'))) {
          runPg(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']);
        }
        rmSync(dir, { recursive: true, force: true });
      });
      runPg(join(source.path, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres']);
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300`;
      runPg(pgCtl, ['-D', data, '-o', options, '-l', join(dir, 'postgres.log'), '-w', 'start']);
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      await waitUntil(() => probes.postgresAnswers(url), `PostgreSQL (log: ${dir}/postgres.log)`);
      return {
        url,
        description: `the binaries in ${source.path} started on ${url}, cluster in ${dir}`,
      };
    }
    case 'container': {
      const { GenericContainer, Wait } = await import('testcontainers');
      const container = await new GenericContainer(source.image)
        .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' })
        .withCommand(['postgres', '-c', 'max_connections=300'])
        .withExposedPorts(5432)
        // The image's entrypoint starts a temporary server first: ready is said twice.
        .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
        .start();
      stops.push(async () => {
        await container.stop();
      });
      const url = `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
      return { url, description: `container ${source.image} (testcontainers) at ${url}` };
    }
  }
}

/** The probes of this machine. */
export function machineProbes(): Probes {
  return {
    natsAnswers,
    postgresAnswers,
    natsServerBinary: () => onPath('nats-server'),
    postgresBinaries,
    async containerRuntime() {
      const { getContainerRuntimeClient } = await import('testcontainers');
      try {
        await getContainerRuntimeClient();
        return true;
      } catch {
        return false;
      }
    },
  };
}

/** NATS greets every client with `INFO {json}`; JetStream servers say `"jetstream":true` in it. */
export function natsAnswers(url: string): Promise<boolean> {
  // A comma-separated list names one cluster: its first server stands for it.
  const { hostname, port } = new URL(url.split(',')[0] ?? url);
  return new Promise((resolve) => {
    const socket = new Socket();
    let greeting = '';
    const finish = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2000, () => finish(false));
    socket.once('error', () => finish(false));
    socket.on('data', (chunk) => {
      greeting += chunk.toString('utf8');
      const end = greeting.indexOf('\r\n');
      if (end === -1) return;
      const line = greeting.slice(0, end);
      if (!line.startsWith('INFO ')) return finish(false);
      try {
        finish((JSON.parse(line.slice(5)) as { jetstream?: boolean }).jetstream === true);
      } catch {
        finish(false);
      }
    });
    socket.connect(Number(port || 4222), hostname);
  });
}

export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  // A refused connection is also reported as an 'error' event on the client.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function onPath(name: string): string | undefined {
  for (const folder of (process.env['PATH'] ?? '').split(delimiter)) {
    if (folder && existsSync(join(folder, name))) return join(folder, name);
  }
  return undefined;
}

/** `initdb` on the PATH, else Debian's newest /usr/lib/postgresql/<major>/bin. */
function postgresBinaries(): string | undefined {
  if (process.getuid?.() === 0 && postgresUid() < 0) return undefined;
  const initdb = onPath('initdb');
  if (initdb && onPath('pg_ctl')) return join(initdb, '..');
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const majors = readdirSync(debian)
    .filter((major) => existsSync(join(debian, major, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(debian, majors[0], 'bin');
}

function postgresUid(): number {
  const result = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  return result.status === 0 ? Number(result.stdout.trim()) : -1;
}

function postgresGid(): number {
  return Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
}

function shellLine(command: string, args: string[]): string {
  return [command, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/g, '//$1:***@');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitUntil(
  ready: () => Promise<boolean>,
  what: string,
  child?: ChildProcess,
): Promise<void> {
  // Up to 30 s: a cold start on a busy two-core machine.
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (child && child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode})`);
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what} did not answer within 30 s`);
}

function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
