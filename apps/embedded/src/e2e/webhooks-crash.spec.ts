import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { WEBHOOK_RECEIVED_SUBJECT } from '@wap/contracts';
import { startProcessCluster, type ProcessCluster, type RunningProcess } from '@wap/testing';
import { adminCaller, liveWorkflow } from './live-workflow';
import { http } from './stack';

/**
 * The distributed runtime under load, with crashes: two webhook-ingest processes and the runner,
 * each its own process; `kill -9` of one webhook-ingest and of the runner while 5,000 requests
 * arrive. Afterwards every request answered `triggered: 1` has exactly one run, and no request
 * has two.
 */
const SESSION_SECRET = 'webhooks-crash-secret-0123456789abcdef0123';
const REQUESTS = 5_000;
const CONCURRENCY = 32;

describe('webhooks across crashing processes', () => {
  let cluster: ProcessCluster;
  const start = (app: string) => cluster.start(app);
  const ready = (child: RunningProcess, name: string) => cluster.ready(child, name);

  beforeAll(async () => {
    cluster = await startProcessCluster({
      env: {
        SESSION_JWT_SECRET: SESSION_SECRET,
        REQUEST_TIMEOUT_MS: '2000',
        // A killed runner's leased runs are taken over quickly.
        RUN_LEASE_MS: '2000',
        WEBHOOK_RATE_LIMIT_PER_SECOND: '100000',
        WEBHOOK_RATE_LIMIT_BURST: '100000',
      },
    });
  });

  afterAll(() => cluster?.stop());

  test('every request answered triggered: 1 has exactly one run, none ran twice', async () => {
    const storage = start('storage');
    const runner = start('workflow-runner');
    const ingests = [start('webhook-ingest'), start('webhook-ingest')];
    const gateway = start('gateway');
    await Promise.all([
      ready(storage, 'storage'),
      ready(runner, 'workflow-runner'),
      ...ingests.map((ingest) => ready(ingest, 'webhook-ingest')),
    ]);
    const [, gatewayUrl = ''] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);

    const call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Crash');
    const { workflowId, webhookId } = await liveWorkflow(call, {
      name: 'Crash',
      credits: 1,
      steps: [{ type: 'delay', name: 'free', settings: { seconds: 0 } }],
    });

    const triggeredEventIds: string[] = [];
    const statuses = new Map<number, number>();
    let next = 0;
    let killed = false;
    const worker = async () => {
      while (next < REQUESTS) {
        const index = (next += 1);
        if (index >= REQUESTS / 5 && !killed) {
          killed = true;
          // Mid-load: one of the two receivers and the runner die without any chance to clean up.
          ingests[0]?.child.kill('SIGKILL');
          runner.child.kill('SIGKILL');
        }
        const response = await http(`${gatewayUrl}/webhooks/${webhookId}`, {
          method: 'POST',
          body: { request: index, nonce: randomBytes(4).toString('hex') },
        }).catch(() => ({ status: 0, body: undefined }));
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const body = response.body as { triggered?: number; eventId?: string } | undefined;
        if (response.status === 200 && body?.triggered === 1 && body.eventId) {
          triggeredEventIds.push(body.eventId);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const restarted = start('workflow-runner');
    await ready(restarted, 'workflow-runner');

    // Most requests were accepted: the surviving receiver took over the address.
    expect(triggeredEventIds.length).toBeGreaterThan(REQUESTS * 0.9);
    expect([...statuses.keys()].every((status) => status === 200 || status === 503)).toBe(true);

    const client = new Client({ connectionString: cluster.database.url });
    await client.connect();
    try {
      const count = async () => {
        const { rows } = await client.query<{ event_id: string; runs: string }>(
          `select event_id, count(*) as runs from workflow_runner.runs
            where workflow_id = $1 and trigger_type = 'custom_webhook' group by event_id`,
          [workflowId],
        );
        return new Map(rows.map((row) => [row.event_id, Number(row.runs)]));
      };
      // Unacknowledged run requests of the killed runner come back after the stream's ack wait.
      const deadline = Date.now() + 90_000;
      let runsByEvent = await count();
      while (triggeredEventIds.some((id) => !runsByEvent.has(id)) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        runsByEvent = await count();
      }
      expect(triggeredEventIds.filter((id) => runsByEvent.get(id) !== 1)).toEqual([]);
      expect([...runsByEvent.values()].filter((runs) => runs > 1)).toEqual([]);
    } finally {
      await client.end();
    }
  }, 240_000);
});

/**
 * A TCP relay between one process and NATS. Once armed, it stops passing the process's bytes to
 * NATS at the first one that publishes `marker`: the process has done everything before that
 * publish and now waits for an acknowledgement that will not come. Replies from NATS still
 * reach it, so it is alive and connected, only stuck, until the test kills it.
 */
async function startCuttingRelay(natsUrl: string, marker: string) {
  const target = new URL(natsUrl);
  const sockets = new Set<Socket>();
  let armed = false;
  let isCut = false;
  let markCut: () => void = () => undefined;
  const cut = new Promise<void>((resolve) => {
    markCut = resolve;
  });
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 4222), target.hostname);
    sockets.add(client).add(upstream);
    let tail = '';
    client.on('data', (chunk: Buffer) => {
      if (isCut) return;
      const seen = tail + chunk.toString('latin1');
      if (armed && seen.includes(marker)) {
        isCut = true;
        markCut();
        return;
      }
      tail = seen.slice(-marker.length);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    // The process's death closes its NATS connection too, as it would without the relay.
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm: () => {
      armed = true;
    },
    cut,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('webhook-ingest killed between its claim and storing the request', () => {
  let cluster: ProcessCluster;
  const relays: Awaited<ReturnType<typeof startCuttingRelay>>[] = [];
  const start = (app: string, extra: Record<string, string> = {}) => cluster.start(app, extra);
  const ready = (child: RunningProcess, name: string) => cluster.ready(child, name);
  const doorOf = async (ingest: RunningProcess) =>
    (await ingest.waitForLine(/"webhookUrl":"(http:\/\/[^"]+)"/, 60_000))[1] ?? '';

  beforeAll(async () => {
    cluster = await startProcessCluster({
      env: { SESSION_JWT_SECRET: SESSION_SECRET },
      // Six processes start from source at once: on two busy cores that takes a while.
      readyTimeoutMs: 180_000,
    });
  });

  afterAll(async () => {
    await cluster?.stop();
    await Promise.all(relays.map((relay) => relay.close()));
  });

  test('a retry through another replica, keyless or with the same key, is stored at once and runs once', async () => {
    const storage = start('storage');
    const runner = start('workflow-runner');
    const gateway = start('gateway');
    const survivor = start('webhook-ingest');
    // One stuck replica per kind of request: its relay cuts it off at its first stored event.
    const stuck = await Promise.all(
      ['keyless', 'keyed'].map(async () => {
        const relay = await startCuttingRelay(cluster.bus.url, WEBHOOK_RECEIVED_SUBJECT);
        relays.push(relay);
        return { relay, ingest: start('webhook-ingest', { NATS_URL: relay.url }) };
      }),
    );
    await Promise.all([
      ready(storage, 'storage'),
      ready(runner, 'workflow-runner'),
      ready(survivor, 'webhook-ingest'),
      ...stuck.map(({ ingest }) => ready(ingest, 'webhook-ingest')),
    ]);
    const [, gatewayUrl = ''] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    const survivorUrl = await doorOf(survivor);

    const call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Stuck');
    const { workflowId, webhookId } = await liveWorkflow(call, {
      name: 'Stuck',
      credits: 10,
      steps: [{ type: 'delay', name: 'free', settings: { seconds: 0 } }],
    });

    const requests: { body: unknown; headers: Record<string, string> }[] = [
      { body: { order: randomUUID() }, headers: {} },
      { body: { order: randomUUID() }, headers: { 'Idempotency-Key': randomUUID() } },
    ];
    const accepted: string[] = [];
    for (const [index, request] of requests.entries()) {
      const { relay, ingest } = stuck[index] ?? {};
      if (!relay || !ingest) throw new Error('no stuck replica');
      relay.arm();
      const first = http(`${await doorOf(ingest)}/webhooks/${webhookId}`, {
        method: 'POST',
        ...request,
      }).catch(() => undefined);
      // The replica holds its claim and waits for an acknowledgement: it dies there.
      await relay.cut;
      await ingest.stop('SIGKILL');
      expect(await first).toBeUndefined();

      const retried = await http(`${survivorUrl}/webhooks/${webhookId}`, {
        method: 'POST',
        ...request,
      });
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ triggered: 1, skipped: 0 });
      accepted.push((retried.body as { eventId: string }).eventId);
    }

    const client = new Client({ connectionString: cluster.database.url });
    await client.connect();
    try {
      const runsOf = async () => {
        const { rows } = await client.query<{ event_id: string }>(
          `select event_id from workflow_runner.runs
            where workflow_id = $1 and trigger_type = 'custom_webhook'`,
          [workflowId],
        );
        return rows.map((row) => row.event_id).sort();
      };
      const deadline = Date.now() + 30_000;
      while ((await runsOf()).length < accepted.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(await runsOf()).toEqual([...accepted].sort());
    } finally {
      await client.end();
    }
  }, 480_000);
});
