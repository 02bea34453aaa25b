import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { nkeyAuthenticator } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { parseAllDocuments } from 'yaml';
import { BUS_PRINCIPALS, inboxPrefixOf } from '@wap/contracts';
import { freePort } from '@wap/testing';

const root = join(__dirname, '..');

async function untilListening(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = netConnect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await sleep(50);
  }
  throw new Error(`nothing listens on ${port}`);
}

/** The values of a generated `<principal>.env`, as a shell's `set -a; .` reads them. */
function envFile(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const [, name, value] = /^([A-Z_]+)='(.*)'$/.exec(line) ?? [];
        return [name ?? '', value ?? ''];
      }),
  );
}

describe('npm run bus:credentials', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bus-credentials-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('writes every principal its own credentials and a server that admits only them', async () => {
    const port = await freePort();
    const monitorPort = await freePort();
    const out = join(dir, 'set');
    const made = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'tools/bus-credentials.ts',
        out,
        '--port',
        String(port),
        '--monitor-port',
        String(monitorPort),
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(made.status).toBe(0);
    expect(readdirSync(out).sort()).toEqual(
      [
        ...BUS_PRINCIPALS.map((principal) => `${principal}.env`),
        'kubernetes-secrets.yaml',
        'nats-auth.conf',
        'nats-server.conf',
      ].sort(),
    );
    for (const file of readdirSync(out).filter((name) => name !== 'nats-auth.conf')) {
      expect(statSync(join(out, file)).mode & 0o777).toBe(0o600);
    }
    const secrets = parseAllDocuments(readFileSync(join(out, 'kubernetes-secrets.yaml'), 'utf8'));
    expect(secrets.map((document) => document.toJS().metadata.name)).toEqual(
      BUS_PRINCIPALS.map((principal) => `${principal}-bus`),
    );
    // The server's configuration names public keys only: no principal's seed or signing key.
    const config = readFileSync(join(out, 'nats-server.conf'), 'utf8');
    for (const principal of BUS_PRINCIPALS) {
      const credentials = envFile(join(out, `${principal}.env`));
      for (const secret of [credentials['NATS_NKEY_SEED'], credentials['BUS_SIGNING_KEY']]) {
        expect(secret).toBeTruthy();
        expect(config).not.toContain(secret);
      }
    }

    const server = spawn('nats-server', ['-c', join(out, 'nats-server.conf')], { stdio: 'ignore' });
    try {
      const url = `nats://127.0.0.1:${port}`;
      await untilListening(port);
      const storage = envFile(join(out, 'storage.env'));
      const admitted = await connect({
        servers: url,
        reconnect: false,
        authenticator: nkeyAuthenticator(new TextEncoder().encode(storage['NATS_NKEY_SEED'])),
        inboxPrefix: inboxPrefixOf('storage'),
      });
      // The platform's users live in an account of their own, not the server's global one.
      const connections = (await (
        await fetch(`http://127.0.0.1:${monitorPort}/connz?auth=true`)
      ).json()) as { connections: { account?: string }[] };
      expect(connections.connections.map((connection) => connection.account)).toEqual([
        'WORKSPACE_PLATFORM',
      ]);
      await admitted.close();
      await expect(connect({ servers: url, reconnect: false })).rejects.toThrow(
        /Authorization Violation/,
      );
    } finally {
      server.kill('SIGTERM');
    }
  });

  test('refuses a call without a folder', () => {
    const refused = spawnSync(process.execPath, ['--import', 'tsx', 'tools/bus-credentials.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('usage: npm run bus:credentials');
  });
});
