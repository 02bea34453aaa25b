// The cluster test's own PostgreSQL cluster, on free ports in a temp folder (its NATS cluster is
// `startOwnNats` of @wap/testing): the machine's servers are shared with everyone, and
// restarting them is one of the faults.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@wap/testing';

function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portAccepts(port)) return;
    await sleep(50);
  }
  throw new Error(`${what} did not accept connections on port ${port} within ${timeoutMs} ms`);
}

/** A PostgreSQL cluster of the test's own (trust auth, its own port and socket folder). */
export interface OwnPostgres {
  /** Connection string of the `postgres` database as the `postgres` user. */
  url: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: no shutdown checkpoint, so the start replays the WAL, as after a crash. */
  crash(): void;
  /** A clean stop, for the end of the test. */
  stop(): void;
  logFile: string;
}

function postgresBinaries(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  if (onPath) return join(onPath, '..');
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  const found = versions.find((version) =>
    existsSync(join('/usr/lib/postgresql', version, 'bin/initdb')),
  );
  if (!found) throw new Error('no PostgreSQL binaries: install Debian\'s "postgresql" package');
  return join('/usr/lib/postgresql', found, 'bin');
}

/**
 * PostgreSQL refuses to run as root: as root (CI), its commands run as the `postgres` user, who
 * then owns the folder, as `.ci/run` does for the shared server.
 */
function asPostgresUser(dir: string): (command: string) => void {
  const root = process.getuid?.() === 0;
  if (root) {
    const ids = (flag: string) =>
      Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const uid = ids('-u');
    if (!Number.isInteger(uid) || uid <= 0)
      throw new Error('running as root needs a postgres user');
    chownSync(dir, uid, ids('-g'));
  }
  return (command) => {
    const { status, stderr } = root
      ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' })
      : spawnSync('sh', ['-c', command], { encoding: 'utf8' });
    if (status !== 0) throw new Error(`${command} failed (exit ${status}): ${stderr}`);
  };
}

export async function ownPostgres(dir: string): Promise<OwnPostgres> {
  const port = await freePort();
  const bin = postgresBinaries();
  const pgDir = join(dir, 'pg');
  mkdirSync(pgDir, { recursive: true });
  // The temp folder is private to its creator; the postgres user must be able to pass through it.
  chmodSync(dir, 0o711);
  const run = asPostgresUser(pgDir);
  const data = join(pgDir, 'data');
  const logFile = join(pgDir, 'postgres.log');
  run(`'${bin}/initdb' -D '${data}' -A trust -U postgres >/dev/null`);
  // Twelve service processes with pools of 10, plus the test's own connections.
  const options = `-p ${port} -k '${pgDir}' -c listen_addresses=127.0.0.1 -c max_connections=300`;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    logFile,
    async start() {
      run(`'${bin}/pg_ctl' -D '${data}' -o "${options}" -l '${logFile}' -w start >/dev/null`);
      await waitForPort(port, 'PostgreSQL');
    },
    crash() {
      run(`'${bin}/pg_ctl' -D '${data}' -m immediate -w stop >/dev/null`);
    },
    stop() {
      run(`'${bin}/pg_ctl' -D '${data}' -m fast -w stop >/dev/null`);
    },
  };
}
