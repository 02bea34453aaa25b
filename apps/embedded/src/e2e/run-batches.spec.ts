import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run, RunBatch } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, type Person, type TestStack } from './stack';

interface BatchDetails {
  batch: RunBatch;
  items: { source_id: string; status: string; run_id: string | null; error: string | null }[];
}

const FAILED_RUNS = 200;

/**
 * Replays and bulk cancels on both runtimes (issue 42 items 2 and 3, decision 159): 200 failed
 * runs replayed at a pace, each once whatever the request's retries; test events replayed;
 * runs cancelled by a filter, asleep or in a running request; a batch stopped part way.
 */
describe.each(RUNTIMES)('replaying and cancelling runs in bulk on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let origin: string;
  let failing = true;
  /** Requests the server received, by the run's idempotency key. */
  const received = new Map<string, number>();
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      const key = String(req.headers['idempotency-key'] ?? '');
      received.set(key, (received.get(key) ?? 0) + 1);
      if (req.url === '/hang') return;
      res.writeHead(failing ? 500 : 200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: {
        workflowRunner: {
          HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1',
          RUN_BATCH_INTERVAL_MS: 300,
          RUN_BATCH_REPLAYS_PER_PASS: 25,
        },
      },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'batch-owner', 2_000));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  async function workflowOf(steps: unknown[]): Promise<{ id: string; webhookId: string }> {
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name: 'Bulk', trigger: { type: 'custom_webhook' }, steps },
    });
    expect(created.status).toBe(201);
    const body = created.body as { workflow: { id: string }; webhook: { id: string } };
    return { id: body.workflow.id, webhookId: body.webhook.id };
  }
  const request = (path = '/') => ({
    type: 'http_request',
    name: 'call',
    settings: { method: 'POST', url: `${origin}${path}` },
  });
  const run = async (workflowId: string) => {
    const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(started.status).toBe(202);
    return (started.body as { runId: string }).runId;
  };
  const counts = async (workflowId: string) =>
    (
      (await http(`${stack.url}/workflows/${workflowId}/runs?limit=1`, { cookie: owner.cookie }))
        .body as { counts: { by_status: Record<string, number> } }
    ).counts.by_status;
  const batchOf = async (batchId: string) => {
    const read = await http(`${stack.url}/run-batches/${batchId}`, { cookie: owner.cookie });
    expect(read.status).toBe(200);
    return read.body as BatchDetails;
  };
  const post = (path: string, body?: unknown) =>
    http(`${stack.url}${path}`, { method: 'POST', cookie: owner.cookie, body });

  test(`${FAILED_RUNS} failed runs are replayed at a pace, each once, whatever the request's retries`, async () => {
    failing = true;
    const workflow = await workflowOf([request()]);
    const sourceIds: string[] = [];
    for (let count = 0; count < FAILED_RUNS; count += 1) sourceIds.push(await run(workflow.id));
    await eventually(
      async () => expect((await counts(workflow.id)).failed).toBe(FAILED_RUNS),
      60_000,
    );
    failing = false;

    const body = { filter: { status: 'failed' }, key: 'after-the-outage' };
    const first = await post(`/workflows/${workflow.id}/runs/replay`, body);
    expect(first.status).toBe(202);
    const { batch } = first.body as { batch: RunBatch };
    expect(batch).toMatchObject({ kind: 'replay', status: 'running', total: FAILED_RUNS });
    expect(batch.more_matched).toBe(false);
    // The same request again (a client's retry) is the same batch, not a second one.
    const again = await post(`/workflows/${workflow.id}/runs/replay`, body);
    expect(again.status).toBe(200);
    expect((again.body as { batch: RunBatch }).batch.id).toBe(batch.id);

    // Paced: 25 a pass, so the batch is seen part way.
    const partWay = await batchOf(batch.id);
    expect(partWay.batch.progress.pending).toBeGreaterThan(0);

    const done = await eventually(async () => {
      const details = await batchOf(batch.id);
      expect(details.batch.status).toBe('succeeded');
      return details;
    }, 60_000);
    expect(done.batch.progress).toMatchObject({ started: FAILED_RUNS, pending: 0, failed: 0 });
    expect(new Set(done.items.map((item) => item.source_id))).toEqual(new Set(sourceIds));
    const replayIds = done.items.map((item) => item.run_id);
    expect(new Set(replayIds).size).toBe(FAILED_RUNS);
    await eventually(
      async () => expect((await counts(workflow.id)).succeeded).toBe(FAILED_RUNS),
      60_000,
    );
    const replay = (
      (await http(`${stack.url}/runs/${replayIds[0]}`, { cookie: owner.cookie })).body as {
        run: Run;
      }
    ).run;
    expect(replay).toMatchObject({ retry_of: done.items[0]?.source_id, attempt: 2 });
    // Each source run's step was sent twice in all: once failing, once replayed.
    for (const sourceId of sourceIds) expect(received.get(`${sourceId}:0:0`)).toBe(1);
    for (const replayId of replayIds) expect(received.get(`${replayId}:0:0`)).toBe(1);

    const listed = await http(`${stack.url}/workflows/${workflow.id}/run-batches`, {
      cookie: owner.cookie,
    });
    expect((listed.body as { batches: RunBatch[] }).batches.map((one) => one.id)).toEqual([
      batch.id,
    ]);
  }, 240_000);

  test('a replay stopped part way skips what it had not reached, and starts no more', async () => {
    failing = true;
    const workflow = await workflowOf([request()]);
    for (let count = 0; count < 60; count += 1) await run(workflow.id);
    await eventually(async () => expect((await counts(workflow.id)).failed).toBe(60), 60_000);
    const started = await post(`/workflows/${workflow.id}/runs/replay`, { limit: 60 });
    const { batch } = started.body as { batch: RunBatch };
    const stopped = await post(`/run-batches/${batch.id}/cancel`);
    expect(stopped.status).toBe(200);
    const { batch: ended } = stopped.body as { batch: RunBatch };
    expect(ended.status).toBe('cancelled');
    expect(ended.progress.skipped).toBeGreaterThan(0);
    expect(ended.progress.pending).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const later = await batchOf(batch.id);
    expect(later.batch.progress).toEqual(ended.progress);
    expect(later.items.filter((item) => item.run_id).length).toBe(ended.progress.started);
    // Stopping it again answers it as it ended.
    const twice = await post(`/run-batches/${batch.id}/cancel`);
    expect((twice.body as { batch: RunBatch }).batch).toMatchObject({ status: 'cancelled' });
  }, 120_000);

  test('test events are replayed as runs of the workflow as it is now', async () => {
    failing = false;
    const workflow = await workflowOf([request()]);
    for (let count = 0; count < 3; count += 1) {
      const captured = await http(`${stack.url}/webhooks/${workflow.webhookId}`, {
        method: 'POST',
        body: { order: count },
      });
      expect(captured.status).toBe(200);
    }
    await eventually(async () => {
      const events = await http(`${stack.url}/workflows/${workflow.id}/test-events`, {
        cookie: owner.cookie,
      });
      expect((events.body as { events: unknown[] }).events).toHaveLength(3);
    });
    const replayed = await post(`/workflows/${workflow.id}/runs/replay`, {
      source: 'test_events',
    });
    expect(replayed.status).toBe(202);
    const { batch } = replayed.body as { batch: RunBatch };
    const done = await eventually(async () => {
      const details = await batchOf(batch.id);
      expect(details.batch.status).toBe('succeeded');
      return details;
    }, 30_000);
    expect(done.batch.progress.started).toBe(3);
    const runs = await http(`${stack.url}/workflows/${workflow.id}/runs?trigger=manual`, {
      cookie: owner.cookie,
    });
    const listed = (runs.body as { runs: Run[] }).runs;
    expect(listed).toHaveLength(3);
    expect(new Set(listed.map((one) => one.trigger.test_event_id))).toEqual(
      new Set(done.items.map((item) => item.source_id)),
    );
  }, 60_000);

  test('runs not ended are cancelled by a filter: asleep in a delay, or in a running request', async () => {
    const sleeping = await workflowOf([
      { type: 'delay', name: 'wait', settings: { seconds: 600 } },
      request('/after'),
    ]);
    const asleep = [await run(sleeping.id), await run(sleeping.id), await run(sleeping.id)];
    const hanging = await workflowOf([request('/hang')]);
    const inRequest = await run(hanging.id);
    await eventually(async () => expect(received.get(`${inRequest}:0:0`)).toBe(1), 30_000);
    await eventually(async () => expect((await counts(sleeping.id)).running).toBe(3), 30_000);

    const cancelled = await post(`/workflows/${sleeping.id}/runs/cancel`, {});
    expect(cancelled.status).toBe(202);
    const cancelledInRequest = await post(`/workflows/${hanging.id}/runs/cancel`, {
      filter: { status: 'running' },
    });
    for (const { body } of [cancelled, cancelledInRequest]) {
      const { batch } = body as { batch: RunBatch };
      await eventually(async () =>
        expect((await batchOf(batch.id)).batch.status).toBe('succeeded'),
      );
    }
    await eventually(async () => {
      expect((await counts(sleeping.id)).cancelled).toBe(3);
      expect((await counts(hanging.id)).cancelled).toBe(1);
    }, 30_000);
    const items = (await batchOf((cancelled.body as { batch: RunBatch }).batch.id)).items;
    expect(new Set(items.map((item) => item.source_id))).toEqual(new Set(asleep));
    expect(items.map((item) => item.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(
      (await batchOf((cancelledInRequest.body as { batch: RunBatch }).batch.id)).items[0]?.status,
    ).toBe('cancel_requested');
    expect(received.get(`${asleep[0]}:1:0`)).toBeUndefined();
  }, 120_000);

  test('a filter the batch cannot act on is a 400; another workspace sees nothing', async () => {
    const workflow = await workflowOf([request()]);
    const refusals: [string, unknown, RegExp][] = [
      ['replay', { filter: { status: 'running' } }, /Only runs that ended are replayed/],
      ['cancel', { filter: { status: 'failed' } }, /Only runs that have not ended are cancelled/],
      [
        'replay',
        { source: 'test_events', filter: { trigger: 'manual' } },
        /Test events are chosen/,
      ],
      ['replay', { limit: 1_001 }, /limit/],
      ['cancel', { filter: { created_after: 'last night' } }, /created_after/],
    ];
    for (const [action, body, message] of refusals) {
      const refused = await post(`/workflows/${workflow.id}/runs/${action}`, body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toMatch(message);
    }
    const made = await post(`/workflows/${workflow.id}/runs/cancel`, {});
    const { batch } = made.body as { batch: RunBatch };
    expect(batch).toMatchObject({ status: 'succeeded', total: 0 });

    const outsider = (await fundedWorkspace(stack, 'batch-outsider', 1)).owner;
    for (const [method, path] of [
      ['POST', `/workflows/${workflow.id}/runs/replay`],
      ['POST', `/workflows/${workflow.id}/runs/cancel`],
      ['GET', `/workflows/${workflow.id}/run-batches`],
      ['GET', `/run-batches/${batch.id}`],
      ['POST', `/run-batches/${batch.id}/cancel`],
    ] as const) {
      const answer = await http(`${stack.url}${path}`, {
        method,
        cookie: outsider.cookie,
        body: path.endsWith('/runs/replay') || path.endsWith('/runs/cancel') ? {} : undefined,
      });
      expect(answer.status).toBe(404);
    }
  }, 60_000);
});
