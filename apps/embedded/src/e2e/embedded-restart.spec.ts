import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runApp, type RunningProcess } from './processes';
import { http, uniqueEmail } from './stack';

describe('npm start: the embedded runtime as a process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'wap-embedded-'));
  const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
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
    const email = uniqueEmail('restart');
    const signIn = await http(`${url}/dev/sign-in?email=${encodeURIComponent(email)}`);
    expect(signIn.status).toBe(302);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const created = await http(`${url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Kept' },
    });
    expect(created.status).toBe(201);
    const { workspace } = created.body as { workspace: { id: string } };

    expect(await running?.stop('SIGKILL')).toBe('SIGKILL');
    url = await start();

    const me = await http(`${url}/me`, { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      user: { email },
      workspaces: [{ id: workspace.id, name: 'Kept', role: 'owner' }],
    });
  });

  test('SIGTERM drains and exits with 128 + 15', async () => {
    expect(await running?.stop('SIGTERM')).toBe(143);
  });
});
