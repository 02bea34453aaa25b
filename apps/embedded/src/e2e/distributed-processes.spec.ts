import { randomBytes } from 'node:crypto';
import { generateCredentialKey, mintSessionToken } from '@wap/auth';
import {
  createTestDatabase,
  type TestDatabase,
  runApp,
  startProcessBus,
  type ProcessBus,
  type RunningProcess,
} from '@wap/testing';
import { http, uniqueEmail } from './stack';

const SERVICES = ['storage', 'workflow-runner', 'chat', 'mcp-registry', 'webhook-ingest'] as const;
const SESSION_SECRET = 'distributed-processes-secret-0123456789abcdef';

describe('the distributed runtime: one process per service', () => {
  let database: TestDatabase;
  let bus: ProcessBus;
  let env: Record<string, string>;
  const namespace = `p${randomBytes(6).toString('hex')}`;
  let gateway: RunningProcess;
  let gatewayUrl: string;
  const services = new Map<string, RunningProcess>();

  async function startService(name: string): Promise<void> {
    const running = runApp(name, env, bus);
    services.set(name, running);
    await running.waitForLine(new RegExp(`"msg":"${name} ready"`), 60_000);
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    bus = await startProcessBus(namespace);
    env = {
      NATS_NAMESPACE: namespace,
      DATABASE_URL: database.url,
      SESSION_JWT_SECRET: SESSION_SECRET,
      REQUEST_TIMEOUT_MS: '1500',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      // mcp-registry refuses to start without its credential key, as in production.
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('e2e'),
    };
    gateway = runApp('gateway', env, bus);
    await Promise.all(SERVICES.map((name) => startService(name)));
    const [, url] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    gatewayUrl = url ?? '';
  }, 120_000);

  afterAll(async () => {
    await Promise.all([gateway, ...services.values()].map((running) => running?.stop('SIGKILL')));
    await database?.drop();
    await bus?.stop();
  });

  test('sessions, GET /me and POST /workspaces work; a stopped storage is a 503 until it is back', async () => {
    const email = uniqueEmail('distributed');
    const cookie = `session=${await mintSessionToken({
      secret: SESSION_SECRET,
      sub: `test|${email}`,
      email,
      name: 'Distributed',
    })}`;
    const created = await http(`${gatewayUrl}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Across processes' },
    });
    expect(created.status).toBe(201);
    expect((await http(`${gatewayUrl}/me`, { cookie })).body).toMatchObject({
      workspaces: [{ name: 'Across processes', role: 'owner' }],
    });

    expect(await services.get('storage')?.stop('SIGTERM')).toBe(143);
    const unavailable = await http(`${gatewayUrl}/me`, { cookie });
    expect(unavailable.status).toBe(503);
    expect(unavailable.body).toEqual({
      error: expect.any(String),
      code: 'SERVICE_UNAVAILABLE',
    });

    await startService('storage');
    const back = await http(`${gatewayUrl}/me`, { cookie });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ workspaces: [{ name: 'Across processes' }] });
  });

  test('every service drains on SIGTERM and exits 143', async () => {
    for (const name of SERVICES) expect(await services.get(name)?.stop('SIGTERM')).toBe(143);
    expect(await gateway.stop('SIGTERM')).toBe(143);
  });
});
