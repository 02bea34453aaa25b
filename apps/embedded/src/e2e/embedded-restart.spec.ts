import { once } from 'node:events';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runApp, type RunningProcess } from '@wap/testing';
import { http, uniqueEmail } from './stack';

describe('npm start: the embedded runtime as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wap-embedded-'));
  // Left open by an earlier start (or by hand): narrowed at the next start.
  chmodSync(dataDir, 0o777);
  mkdirSync(join(dataDir, 'left-open'));
  chmodSync(join(dataDir, 'left-open'), 0o777);
  writeFileSync(join(dataDir, 'left-open', 'notes'), 'chat text');
  chmodSync(join(dataDir, 'left-open', 'notes'), 0o666);
  // No HOST: the embedded runtime listens on 127.0.0.1 unless told otherwise.
  const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', DEV_SIGN_IN: 'on' };
  let running: RunningProcess | undefined;

  afterAll(async () => {
    await running?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function start(): Promise<string> {
    running = runApp('embedded', env);
    const [, url] = await running.waitForLine(/Platform running at (http:\/\/\S+)/, 60_000);
    return url ?? '';
  }

  test('a workspace created before a kill -9 is there after the restart', async () => {
    let url = await start();
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(running?.output()).toContain('DEV_SIGN_IN=on: anyone who reaches this address');
    const port = new URL(url).port;
    const outward = Object.values(networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal);
    if (outward) {
      await expect(fetch(`http://${outward.address}:${port}/healthz`)).rejects.toThrow();
    }
    const email = uniqueEmail('restart');
    const signIn = await http(`${url}/dev/sign-in?email=${encodeURIComponent(email)}`);
    expect(signIn.status).toBe(303);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const created = await http(`${url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Kept' },
    });
    expect(created.status).toBe(201);
    const { workspace } = created.body as { workspace: { id: string } };
    // PORT=0: the webhook address names the port the gateway took, not 0.
    const workflow = await http(`${url}/workflows`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId: workspace.id,
        name: 'Addressed',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', settings: { seconds: 0 } }],
      },
    });
    const webhookUrl = (workflow.body as { webhook: { url: string } }).webhook.url;
    expect(new URL(webhookUrl).port).toBe(port);

    expect(await running?.stop('SIGKILL')).toBe('SIGKILL');
    url = await start();

    const me = await http(`${url}/me`, { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { email },
      workspaces: [{ id: workspace.id, name: 'Kept', role: 'owner' }],
    });
  });

  test("the data folder and everything in it are the user's alone: folders 0700, files 0600 at most", () => {
    const loose: string[] = [];
    const walk = (path: string) => {
      const stat = lstatSync(path);
      if (stat.isSymbolicLink()) return;
      const mode = stat.mode & 0o777;
      if (stat.isDirectory() ? mode !== 0o700 : (mode & 0o077) !== 0) {
        loose.push(`${path} ${mode.toString(8)}`);
      }
      if (stat.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    };
    walk(dataDir);
    expect(loose).toEqual([]);
    // The database itself is among what was checked.
    expect(readdirSync(dataDir)).toContain('pglite');
  });

  test('SIGTERM drains and exits with 128 + 15', async () => {
    expect(await running?.stop('SIGTERM')).toBe(143);
  });

  test.each([
    [{}, 'NODE_ENV=production verifies sessions against SESSION_JWKS_URL only'],
    [
      { SESSION_JWT_SECRET: 'a-shared-secret-that-is-long-enough-0123456789' },
      'NODE_ENV=production verifies sessions against SESSION_JWKS_URL only',
    ],
  ])(
    'NODE_ENV=production with secret-signed sessions (%j) refuses to start',
    async (settings, message) => {
      const refusedDir = mkdtempSync(join(tmpdir(), 'wap-embedded-production-'));
      try {
        const refused = runApp('embedded', {
          DATA_DIR: refusedDir,
          PORT: '0',
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          ...settings,
        });
        if (refused.child.exitCode === null) await once(refused.child, 'exit');
        expect(refused.child.exitCode).toBe(1);
        expect(refused.output()).toContain(message);
        expect(refused.output()).not.toContain('Platform running at');
      } finally {
        rmSync(refusedDir, { recursive: true, force: true });
      }
    },
  );
});
