import {
  checkoutRelease,
  startProcessCluster,
  type ProcessCluster,
  type ReleaseCheckout,
  type RunningProcess,
} from '@wap/testing';
import { adminCaller, type Call } from './live-workflow';

/**
 * A rolling deploy of one service (decision 143): storage of the previous release and storage of
 * this one serve one queue group side by side on one database and bus, then the old replica is
 * stopped while requests keep coming. Every request is answered, by either version.
 *
 * PREVIOUS_RELEASE is the commit of the last release that landed; it moves forward with each
 * release, so each one is checked against the one it replaces.
 */
const PREVIOUS_RELEASE = '35dd7ed0f9e36d93b88cec87a06f9bb1726ac100';
const SESSION_SECRET = 'rolling-deploy-secret-0123456789abcdef01234';

/** The bus requests a service process has answered, from its /metrics. */
async function requestsServed(healthPort: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
  let served = 0;
  for (const line of text.split('\n')) {
    if (
      line.startsWith('wap_bus_request_duration_seconds_count{') &&
      line.includes('side="server"')
    ) {
      served += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return served;
}

describe('a rolling deploy of storage: the previous release beside this one', () => {
  jest.setTimeout(240_000);
  let release: ReleaseCheckout;
  let cluster: ProcessCluster;

  beforeAll(async () => {
    release = checkoutRelease(PREVIOUS_RELEASE);
    cluster = await startProcessCluster({ env: { SESSION_JWT_SECRET: SESSION_SECRET } });
  });

  afterAll(async () => {
    await cluster?.stop();
    release?.remove();
  });

  /** Starts storage from `root` and resolves with its health port once it is ready. */
  async function startStorage(root?: string): Promise<{ replica: RunningProcess; port: string }> {
    const replica = cluster.start('storage', {}, root);
    const [, port = ''] = await replica.waitForLine(
      /"healthPort":(\d+)[^\n]*"msg":"storage ready"/,
      90_000,
    );
    return { replica, port };
  }

  const addTable = (call: Call, workspaceId: string, name: string) =>
    call('POST', '/tables', { workspaceId, name });

  test('both versions answer while they run together, and none is lost as the old one stops', async () => {
    const old = await startStorage(release.root);
    const gateway = cluster.start('gateway');
    const [, gatewayUrl = ''] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    const call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Rolling');
    const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
      name: 'Rolling deploy',
    });
    await addTable(call, workspace.id, 'Made by the previous release');

    const current = await startStorage();
    const oldBefore = await requestsServed(old.port);
    for (let index = 0; index < 40; index += 1) {
      await addTable(call, workspace.id, `Side by side ${index}`);
    }
    // NATS spreads a queue group's requests over its members: both versions answered some.
    expect(await requestsServed(old.port)).toBeGreaterThan(oldBefore);
    expect(await requestsServed(current.port)).toBeGreaterThan(0);

    // The old replica stops as a deploy stops it, while requests keep coming.
    let stopping = true;
    let added = 0;
    const traffic = (async () => {
      while (stopping) {
        await addTable(call, workspace.id, `During the stop ${added}`);
        added += 1;
      }
    })();
    let exit: number | string;
    try {
      exit = await old.replica.stop('SIGTERM');
    } finally {
      stopping = false;
      await traffic;
    }
    // 143: it drained and exited on SIGTERM, as its shutdown does (128 + the signal).
    expect(exit).toBe(143);
    for (let index = 0; index < 5; index += 1) {
      await addTable(call, workspace.id, `After the stop ${index}`);
    }

    const names: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { tables: { name: string }[]; nextCursor: string | null } = await call(
        'GET',
        `/tables?workspaceId=${workspace.id}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      names.push(...page.tables.map((table) => table.name));
      cursor = page.nextCursor;
    }
    expect(names).toHaveLength(1 + 40 + added + 5);
    expect(names).toContain('Made by the previous release');
  });
});
