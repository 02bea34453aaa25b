import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AppError,
  CREDIT_BALANCES_BUCKET,
  CREDIT_MESSAGES,
  creditBalanceKey,
  DEAD_LETTER_HEADERS,
  DEAD_LETTERS_STREAM,
  WEBHOOK_EVENTS_STREAM,
  CreditSnapshot,
  InflightClaim,
  START_RUN_SUBJECT,
  WEBHOOK_INFLIGHT_BUCKET,
  WEBHOOK_INFLIGHT_BUCKET_OPTIONS,
  WEBHOOK_RECEIVED_SUBJECT,
  WEBHOOKS_BUCKET,
  webhookKey,
  type Actor,
  type StartRun,
  type StepInput,
  type WebhookReceived,
  RUNS_STREAM_CONFIG,
  BUS_APIS,
} from '@wap/contracts';
import { decodeJson, encodeJson, type Platform } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import { asBusPrincipal, eventually, testLogger } from '@wap/testing';
import type { ServiceHandle } from '@wap/service-runtime';
import { createCreditLedger } from '../credits/ledger';
import { createTestEventRepository } from '../test-events/repository';
import { MAX_FAILED_ATTEMPTS } from '../bus/dead-letters';
import { startInflightClaimRefresh } from './inflight-claims';
import { createRunRepository } from './repository';
import { createWorkflowRepository } from '../workflows/repository';
import {
  actorFor,
  CALL_TIMEOUT_MS,
  callRunnerRoute,
  createWebhookWorkflow,
  publishWebhookEvent,
  publishWorkspace,
  runReaching,
  runtimes,
  startRunner,
  webhookEventFor,
  type CreatedWorkflow,
  type RuntimeUnderTest,
} from '../testing/runner-harness';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local HTTP server the http_request steps call (allow-listed for this spec only). */
async function startTargetServer(): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url?.startsWith('/fail')) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
        return;
      }
      if (req.url?.startsWith('/nul')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ note: 'a\u0000b', ['k\u0000']: 1 }));
        return;
      }
      if (req.url?.startsWith('/order')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'order-7', items: [{ sku: 'A1' }] }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

describe.each(runtimes)('runs on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  let runner: ServiceHandle;
  let target: Awaited<ReturnType<typeof startTargetServer>>;
  const admin = actorFor('admin', { platformAdmin: true });

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = runtime.platform;
    target = await startTargetServer();
    runner = await startRunner(platform, { SSRF_ALLOWLIST: '127.0.0.1', RUN_LEASE_MS: 1_000 });
  });
  afterAll(async () => {
    await runner.stop();
    await new Promise((resolve) => target.server.close(resolve));
    await runtime.cleanup();
  });

  async function newWorkspace(credits: number): Promise<{ owner: Actor; workspaceId: string }> {
    const owner = actorFor(`owner-${randomUUID().slice(0, 8)}`);
    const workspaceId = await publishWorkspace(platform, [owner]);
    if (credits > 0) {
      const granted = await callRunnerRoute(platform, 'grant_credits', admin, {
        params: { workspaceId },
        body: { amount: credits, reason: 'spec' },
      });
      expect(granted.status).toBe(201);
    }
    return { owner, workspaceId };
  }

  const createWorkflow = (
    owner: Actor,
    workspaceId: string,
    steps: StepInput[],
    settings: Record<string, unknown> = {},
  ) => createWebhookWorkflow(platform, owner, workspaceId, steps, settings);

  const publishEvent = (data: WebhookReceived, options: { dedupe?: boolean } = {}) =>
    publishWebhookEvent(platform, data, options);

  async function publishTestEvent(created: CreatedWorkflow, body: unknown): Promise<string> {
    const data = webhookEventFor(created, body);
    await publishEvent(data);
    return data.eventId;
  }

  async function manualRun(owner: Actor, workflowId: string, testEventId?: string) {
    const reply = await callRunnerRoute(platform, 'run_workflow', owner, {
      params: { id: workflowId },
      body: testEventId ? { testEventId } : undefined,
    });
    expect(reply.status).toBe(202);
    return (reply.body as { runId: string }).runId;
  }

  async function balanceSnapshot(workspaceId: string): Promise<number | undefined> {
    const bucket = await platform.kv.bucket(CREDIT_BALANCES_BUCKET);
    const entry = await bucket.get(creditBalanceKey(workspaceId));
    return entry ? CreditSnapshot.parse(decodeJson(entry.value)).balance : undefined;
  }

  test('http_request steps call a real server with templates filled from the event and earlier steps; paid steps are charged', async () => {
    const { owner, workspaceId } = await newWorkspace(10);
    const created = await createWorkflow(owner, workspaceId, [
      {
        type: 'http_request',
        name: 'fetch order',
        settings: {
          method: 'GET',
          url: `${target.url}/order?customer={{Custom Webhook.customer.id}}`,
        },
      },
      {
        type: 'http_request',
        settings: {
          method: 'POST',
          url: `${target.url}/echo/{{steps.fetch order.body.id}}`,
          headers: { 'x-city': '{{Custom Webhook.customer.address.city}}' },
          body: {
            sku: '{{steps.fetch order.body.items.0.sku}}',
            amount: '{{Custom Webhook.amount}}',
            missing: 'before-{{Custom Webhook.nothing.here}}-after',
          },
        },
      },
    ]);
    expect(created.workflow.credit_cost).toBe(2);
    const eventId = await publishTestEvent(created, {
      customer: { id: 'c-1', address: { city: 'Paris' } },
      amount: 12.5,
    });
    await eventually(async () => {
      const events = await callRunnerRoute(platform, 'list_test_events', owner, {
        params: { id: created.workflow.id },
      });
      expect(events.body).toMatchObject({ events: [{ id: eventId }] });
    });

    const runId = await manualRun(owner, created.workflow.id);
    const run = await runReaching(platform, owner, runId, ['succeeded', 'failed']);
    expect(run.status).toBe('succeeded');
    expect(run.trigger).toEqual({
      type: 'manual',
      event_id: null,
      test_event_id: eventId,
      key_id: null,
      failed_run_id: null,
      parent_run_id: null,
      iteration: null,
    });
    expect(run.credits_charged).toBe(2);
    expect(run.steps.map((step) => [step.name, step.status, step.credits_charged])).toEqual([
      ['fetch order', 'succeeded', 1],
      ['step_2', 'succeeded', 1],
    ]);
    expect(run.steps[1]?.input).toEqual({
      method: 'POST',
      url: `${target.url}/echo/order-7`,
      headers: { 'x-city': 'Paris' },
      body: { sku: 'A1', amount: 12.5, missing: 'before--after' },
    });
    expect(run.steps[0]?.output).toMatchObject({ status: 200, body: { id: 'order-7' } });
    for (const step of run.steps) {
      expect(step.duration_ms).toEqual(expect.any(Number));
      expect(step.error).toBeNull();
    }
    const echo = target.received.find((request) => request.url === '/echo/order-7');
    expect(echo?.headers['x-city']).toBe('Paris');
    expect(echo?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(echo?.body ?? '')).toEqual({
      sku: 'A1',
      amount: 12.5,
      missing: 'before--after',
    });
    expect(target.received.some((request) => request.url === '/order?customer=c-1')).toBe(true);

    const credits = await callRunnerRoute(platform, 'get_credits', owner, {
      params: { workspaceId },
    });
    expect(credits.body).toEqual({ balance: 8 });
    await eventually(async () => expect(await balanceSnapshot(workspaceId)).toBe(8));
  });

  test('a step whose response holds a NUL is kept with U+FFFD in its place, and the run goes on', async () => {
    const { owner, workspaceId } = await newWorkspace(10);
    const created = await createWorkflow(owner, workspaceId, [
      {
        type: 'http_request',
        name: 'fetch',
        settings: { method: 'GET', url: `${target.url}/nul` },
      },
      { type: 'delay', name: 'after', settings: { seconds: 0 } },
    ]);
    const run = await runReaching(platform, owner, await manualRun(owner, created.workflow.id), [
      'succeeded',
      'failed',
    ]);
    expect(run.status).toBe('succeeded');
    expect(run.steps[0]?.output).toMatchObject({
      body: { note: 'a\ufffdb', ['k\ufffd']: 1 },
    });
  });

  test('stop_on_node_failure (default) stops at a failed step; off, the run goes on and records the failure', async () => {
    const { owner, workspaceId } = await newWorkspace(10);
    const steps: StepInput[] = [
      {
        type: 'http_request',
        name: 'broken',
        settings: { method: 'POST', url: `${target.url}/fail` },
      },
      {
        type: 'http_request',
        name: 'after',
        settings: { method: 'GET', url: `${target.url}/order` },
      },
    ];
    const stopping = await createWorkflow(owner, workspaceId, steps);
    expect(stopping.workflow.settings.stopOnNodeFailure).toBe(true);
    const stopped = await runReaching(
      platform,
      owner,
      await manualRun(owner, stopping.workflow.id),
      ['succeeded', 'failed'],
    );
    expect(stopped.status).toBe('failed');
    expect(stopped.error).toBe('Step "broken" failed: The server answered HTTP 500');
    expect(stopped.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
    expect(stopped.steps[0]?.output).toMatchObject({ status: 500, body: 'broken' });
    expect(stopped.credits_charged).toBe(1);

    const going = await createWorkflow(owner, workspaceId, steps, { stopOnNodeFailure: false });
    const goneOn = await runReaching(platform, owner, await manualRun(owner, going.workflow.id), [
      'succeeded',
      'failed',
    ]);
    expect(goneOn.status).toBe('succeeded');
    expect(goneOn.steps.map((step) => [step.status, step.error])).toEqual([
      ['failed', 'The server answered HTTP 500'],
      ['succeeded', null],
    ]);
    expect(goneOn.credits_charged).toBe(2);
  });

  test('WEBHOOK_EVENTS: an event that starts a run becomes one test event and one run (redelivery and republish included), waits for notBefore, and releases its in-flight key', async () => {
    const { owner, workspaceId } = await newWorkspace(5);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const inflight = await platform.kv.bucket(
      WEBHOOK_INFLIGHT_BUCKET,
      WEBHOOK_INFLIGHT_BUCKET_OPTIONS,
    );
    const inflightKey = `fp.${randomUUID()}`;
    const runId = randomUUID();
    await inflight.create(inflightKey, encodeJson(runId));
    const notBefore = new Date(Date.now() + 1_500);
    const event = webhookEventFor(
      created,
      { hello: 'world' },
      { runId, inflightKey, notBefore: notBefore.toISOString() },
    );
    await publishEvent(event);
    // Outside the dedupe window JetStream would store it twice: the runner must still make one
    // run and one test event.
    await publishEvent(event, { dedupe: false });

    const queued = await runReaching(platform, owner, runId, ['queued']);
    expect(queued.not_before).toBe(notBefore.toISOString());
    expect(queued.input).toEqual({ hello: 'world' });
    expect(queued.trigger).toMatchObject({ type: 'custom_webhook', event_id: event.eventId });
    expect(await inflight.get(inflightKey)).not.toBeNull();

    const done = await runReaching(platform, owner, runId, ['succeeded'], 8_000);
    expect(new Date(done.started_at ?? 0).getTime()).toBeGreaterThanOrEqual(notBefore.getTime());
    await eventually(async () => expect(await inflight.get(inflightKey)).toBeNull());
    const list = await callRunnerRoute(platform, 'list_runs', owner, {
      params: { id: created.workflow.id },
    });
    expect((list.body as { runs: unknown[] }).runs).toHaveLength(1);
    const events = await callRunnerRoute(platform, 'list_test_events', owner, {
      params: { id: created.workflow.id },
    });
    expect((events.body as { events: { id: string }[] }).events).toEqual([
      expect.objectContaining({ id: event.eventId, body: { hello: 'world' } }),
    ]);
  });

  test('the in-flight claim of a run still going is rewritten before the bucket TTL ends; claims of ended runs, of other events and values that are no claims expire', async () => {
    const { owner, workspaceId } = await newWorkspace(5);
    const waiting = await createWorkflow(owner, workspaceId, [
      { type: 'approval', name: 'review', settings: { reviewerIds: [owner.userId] } },
    ]);
    const ending = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const ttlMs = 3_000;
    const inflight = await platform.kv.bucket(`inflight_spec_${randomUUID().slice(0, 8)}`, {
      ttlMs,
    });
    const keys = {
      waiting: `fp.${randomUUID()}`,
      ended: `fp.${randomUUID()}`,
      other: `fp.${randomUUID()}`,
      garbled: `fp.${randomUUID()}`,
    };
    const refresh = startInflightClaimRefresh({
      runs: createRunRepository({ db: platform.sql.db, clock: platform.clock }),
      inflight,
      ttlMs,
      clock: platform.clock,
      logger: testLogger(),
    });
    const startRun = async (
      created: CreatedWorkflow,
      inflightKey: string,
      claimant: 'own event' | 'another event' | 'not a claim',
      runId = randomUUID(),
    ) => {
      const event = webhookEventFor(created, {}, { runId, inflightKey, notBefore: null });
      const eventId = claimant === 'own event' ? event.eventId : randomUUID();
      await inflight.create(
        inflightKey,
        claimant === 'not a claim'
          ? new TextEncoder().encode('garbled')
          : encodeJson({ eventId, claimedAtMs: Date.now() }),
      );
      await publishEvent(event);
      return { runId, eventId: event.eventId };
    };
    const waitingRun = await startRun(waiting, keys.waiting, 'own event');
    const takenOverRun = await startRun(waiting, keys.other, 'another event');
    const endedRun = await startRun(ending, keys.ended, 'own event');
    // First in id order: a value that is not a claim must not stop the pass.
    const garbledRun = await startRun(
      waiting,
      keys.garbled,
      'not a claim',
      `00000000-0000-4000-8000-${randomUUID().slice(-12)}`,
    );
    for (const run of [waitingRun, takenOverRun, garbledRun]) {
      await runReaching(platform, owner, run.runId, ['waiting_approval']);
    }
    await runReaching(platform, owner, endedRun.runId, ['succeeded']);
    try {
      await eventually(async () => {
        expect(await inflight.get(keys.ended)).toBeNull();
        expect(await inflight.get(keys.other)).toBeNull();
        expect(await inflight.get(keys.garbled)).toBeNull();
      }, 3 * ttlMs);
      // Two more TTLs: without its rewrites the waiting run's claim would be long gone.
      await new Promise((resolve) => setTimeout(resolve, 2 * ttlMs));
      const kept = await inflight.get(keys.waiting);
      expect(kept).not.toBeNull();
      expect(InflightClaim.parse(decodeJson(kept?.value ?? new Uint8Array()))).toMatchObject({
        eventId: waitingRun.eventId,
      });
    } finally {
      await refresh.stop();
    }
  });

  test('RUNS: a StartRun of the MCP server becomes one run, also when it is delivered twice', async () => {
    const { owner, workspaceId } = await newWorkspace(5);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const runId = randomUUID();
    const keyId = randomUUID();
    const start: StartRun = {
      runId,
      workflowId: created.workflow.id,
      workspaceId,
      trigger: { type: 'mcp', keyId, input: { from: 'mcp' } },
    };
    const envelope = encodeJson({
      type: START_RUN_SUBJECT,
      id: runId,
      time: new Date().toISOString(),
      data: start,
    });
    await platform.streams.ensureStream(RUNS_STREAM_CONFIG);
    // Signed as the runner's own bus API signs what it puts on RUNS (decision 150).
    const runner = await asBusPrincipal(platform, 'workflow-runner');
    await runner.streams.publish(START_RUN_SUBJECT, envelope, { messageId: runId });
    await runner.streams.publish(START_RUN_SUBJECT, envelope);

    const done = await runReaching(platform, owner, runId, ['succeeded'], 8_000);
    expect(done.input).toEqual({ from: 'mcp' });
    expect(done.trigger).toMatchObject({ type: 'mcp', key_id: keyId });
    const list = await callRunnerRoute(platform, 'list_runs', owner, {
      params: { id: created.workflow.id },
    });
    expect((list.body as { runs: unknown[] }).runs).toHaveLength(1);
  });

  test('a delay waits in the scheduler table; an approval pauses the run; unserved bus steps fail clearly', async () => {
    const { owner, workspaceId } = await newWorkspace(20);
    const created = await createWorkflow(
      owner,
      workspaceId,
      [
        { type: 'delay', name: 'wait', settings: { seconds: 1 } },
        {
          type: 'table_row',
          name: 'row',
          settings: { tableId: 't1', values: { a: '{{Custom Webhook.a}}' } },
        },
        {
          type: 'assistant_prompt',
          name: 'ask',
          settings: { prompt: 'Summarise {{Custom Webhook.a}}' },
        },
        {
          type: 'approval',
          name: 'review',
          settings: { reviewerIds: [owner.userId], message: 'ok?' },
        },
      ],
      { stopOnNodeFailure: false },
    );
    const started = Date.now();
    const runId = await manualRun(owner, created.workflow.id);
    const running = await runReaching(platform, owner, runId, ['running']);
    expect(running.steps[0]?.status).toBe('running');
    const paused = await runReaching(platform, owner, runId, ['waiting_approval'], 8_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(paused.steps.map((step) => [step.name, step.status])).toEqual([
      ['wait', 'succeeded'],
      ['row', 'failed'],
      ['ask', 'failed'],
      ['review', 'waiting'],
    ]);
    expect(paused.steps[1]?.error).toBe(
      'The table service is not available: no service answers storage.api.table_row.v1',
    );
    expect(paused.steps[2]?.error).toBe(
      'The assistant is not available: no service answers chat.api.assistant_prompt.v1',
    );
    expect(paused.steps[1]?.input).toEqual({ tableId: 't1', values: { a: '' } });
    expect(paused.finished_at).toBeNull();
  });

  test('two runs racing for the last credit: one is charged, the other fails, the balance never goes below zero', async () => {
    const { owner, workspaceId } = await newWorkspace(1);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'http_request', settings: { method: 'GET', url: `${target.url}/order` } },
    ]);
    const replies = await Promise.all([
      callRunnerRoute(platform, 'run_workflow', owner, { params: { id: created.workflow.id } }),
      callRunnerRoute(platform, 'run_workflow', owner, { params: { id: created.workflow.id } }),
    ]);
    const runIds = replies
      .filter((reply) => reply.status === 202)
      .map((reply) => (reply.body as { runId: string }).runId);
    const runs = await Promise.all(
      runIds.map((runId) => runReaching(platform, owner, runId, ['succeeded', 'failed'])),
    );
    expect(runs.filter((run) => run.status === 'succeeded')).toHaveLength(1);
    // The loser fails at its start check (the winner's charge left nothing) or at its own charge.
    for (const run of runs.filter((candidate) => candidate.status === 'failed')) {
      expect([CREDIT_MESSAGES.depleted, CREDIT_MESSAGES.insufficient]).toContain(run.error);
    }
    const credits = await callRunnerRoute(platform, 'get_credits', owner, {
      params: { workspaceId },
    });
    expect(credits.body).toEqual({ balance: 0 });
  });

  test('the ledger charges each step once and never below zero under concurrent charges', async () => {
    const { workspaceId } = await newWorkspace(5);
    const ledger = createCreditLedger({
      db: platform.sql.db,
      clock: platform.clock,
      ids: platform.ids,
    });
    const runId = randomUUID();
    const results = await Promise.all(
      Array.from({ length: 12 }, (_unused, index) =>
        ledger.chargeStep({ workspaceId, runId, stepIndex: index, amount: 1, reason: 'race' }),
      ),
    );
    expect(results.filter((result) => result.charged)).toHaveLength(5);
    expect(await ledger.balanceOf(workspaceId)).toBe(0);
    const again = await ledger.chargeStep({
      workspaceId,
      runId,
      stepIndex: 0,
      amount: 1,
      reason: 'race',
    });
    expect(again.charged).toBe(results[0]?.charged);
    expect(await ledger.balanceOf(workspaceId)).toBe(0);
  });

  test('a run whose executor died mid-step is resumed after its lease lapses, without charging the step twice', async () => {
    const { owner, workspaceId } = await newWorkspace(3);
    const created = await createWorkflow(owner, workspaceId, [
      {
        type: 'http_request',
        name: 'call',
        settings: { method: 'GET', url: `${target.url}/order` },
      },
    ]);
    const workflows = createWorkflowRepository({
      db: platform.sql.db,
      clock: platform.clock,
      ids: platform.ids,
    });
    const runs = createRunRepository({ db: platform.sql.db, clock: platform.clock });
    const ledger = createCreditLedger({
      db: platform.sql.db,
      clock: platform.clock,
      ids: platform.ids,
    });
    const workflow = await workflows.find(created.workflow.id);
    if (!workflow) throw new Error('workflow missing');
    const runId = randomUUID();
    // The dead replica: it claimed the run, charged and started the step, then vanished.
    const deadOwner = 'dead-replica';
    const createdRun = await runs.create({
      runId,
      workflow,
      trigger: { type: 'manual', testEventId: null },
      input: {},
      inflightKey: null,
      notBefore: new Date(Date.now() + 60_000),
      traceparent: null,
    });
    expect(createdRun).toBe(true);
    await runs.markRunning(runId);
    await ledger.chargeStep({ workspaceId, runId, stepIndex: 0, amount: 1, reason: 'dead' });
    await runs.startStep(runId, 0, { input: {}, startedAt: new Date() });
    await platform.sql.db.execute(
      sql`update workflow_runner.runs set wake_at = now(), lease_owner = ${deadOwner}, lease_until = now() + interval '1 second' where id = ${runId}`,
    );
    const resumed = await runReaching(platform, owner, runId, ['succeeded', 'failed'], 8_000);
    expect(resumed.status).toBe('succeeded');
    expect(resumed.steps[0]?.status).toBe('succeeded');
    expect(await ledger.balanceOf(workspaceId)).toBe(2);
  });

  test('runs created with a lease: only due ones, at most its count; a replica that died after creating them lets the lease lapse and they run', async () => {
    const { owner, workspaceId } = await newWorkspace(3);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const workflow = await createWorkflowRepository({
      db: platform.sql.db,
      clock: platform.clock,
      ids: platform.ids,
    }).find(created.workflow.id);
    if (!workflow) throw new Error('workflow missing');
    const runs = createRunRepository({ db: platform.sql.db, clock: platform.clock });
    const newRun = (notBefore: Date | null) => ({
      runId: randomUUID(),
      workflow,
      trigger: { type: 'manual' as const, testEventId: null },
      input: {},
      inflightKey: null,
      notBefore,
      traceparent: null,
    });
    const later = new Date(Date.now() + 60_000);
    const requested = [newRun(later), newRun(null), newRun(null)];
    const lease = { owner: 'replica-killed-after-commit', count: 1, aheadMs: 0, leaseMs: 1_000 };

    const createdRuns = await runs.createMany(requested, platform.sql.db, lease);

    expect(createdRuns.map(({ run }) => [run.leaseOwner, run.wakeAt])).toEqual([
      [null, later],
      [lease.owner, expect.any(Date)],
      [null, expect.any(Date)],
    ]);
    const stored = await runs.get(requested[1]?.runId ?? '');
    const wokenAt = createdRuns[1]?.run.wakeAt?.getTime() ?? 0;
    expect(stored?.run).toMatchObject({
      leaseOwner: lease.owner,
      leaseUntil: new Date(wokenAt + lease.leaseMs),
    });
    expect(stored?.steps).toEqual(createdRuns[1]?.steps);
    expect(await runs.createMany(requested, platform.sql.db, lease)).toEqual([]);
    for (const { runId } of requested.slice(1)) {
      expect((await runReaching(platform, owner, runId, ['succeeded'], 8_000)).status).toBe(
        'succeeded',
      );
    }
    expect((await runReaching(platform, owner, requested[0]?.runId ?? '', ['queued'])).status).toBe(
      'queued',
    );
  });

  test('the replica that stores webhook runs starts them itself, past its room too, without waiting out a lease', async () => {
    // A lease no test waits out: a run left to lapse would fail the test.
    await runner.stop();
    runner = await startRunner(platform, {
      SSRF_ALLOWLIST: '127.0.0.1',
      RUN_LEASE_MS: 60_000,
      RUN_CONCURRENCY: 2,
    });
    const { owner, workspaceId } = await newWorkspace(5);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const runIds = Array.from({ length: 5 }, () => randomUUID());

    await Promise.all(
      runIds.map((runId, index) =>
        publishEvent(
          webhookEventFor(created, { index }, { runId, inflightKey: null, notBefore: null }),
        ),
      ),
    );

    for (const runId of runIds) {
      expect((await runReaching(platform, owner, runId, ['succeeded'], 8_000)).status).toBe(
        'succeeded',
      );
    }
    await runner.stop();
    runner = await startRunner(platform, { SSRF_ALLOWLIST: '127.0.0.1', RUN_LEASE_MS: 1_000 });
  });

  test('the MCP bus API lists workflows, starts runs with the spec 402 messages, and reads runs', async () => {
    // The platform's MCP server in mcp-registry is the one caller of these subjects.
    const registry = await asBusPrincipal(platform, 'mcp-registry');
    const { owner, workspaceId } = await newWorkspace(0);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'http_request', settings: { method: 'GET', url: `${target.url}/order` } },
      { type: 'http_request', settings: { method: 'GET', url: `${target.url}/order` } },
    ]);
    const listed = await callApi(
      registry.bus,
      BUS_APIS.listWorkflows,
      { workspaceId },
      { timeoutMs: CALL_TIMEOUT_MS },
    );
    expect(listed.workflows).toEqual([
      { id: created.workflow.id, name: 'spec flow', status: 'draft', credit_cost: 2 },
    ]);
    const start = (input: Record<string, unknown>, forWorkspace = workspaceId) =>
      callApi(
        registry.bus,
        BUS_APIS.startRun,
        { workspaceId: forWorkspace, workflowId: created.workflow.id, keyId: randomUUID(), input },
        { timeoutMs: CALL_TIMEOUT_MS },
      );
    await expect(start({})).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      status: 402,
      message: CREDIT_MESSAGES.depleted,
    });
    await callRunnerRoute(platform, 'grant_credits', admin, {
      params: { workspaceId },
      body: { amount: 1, reason: 'spec' },
    });
    await expect(start({})).rejects.toMatchObject({ message: CREDIT_MESSAGES.insufficient });
    await callRunnerRoute(platform, 'grant_credits', admin, {
      params: { workspaceId },
      body: { amount: 1, reason: 'spec' },
    });
    const { runId } = await start({ order: 7 });
    const elsewhere = await start({}, randomUUID()).catch((error: unknown) => error);
    expect(elsewhere).toBeInstanceOf(AppError);
    expect(elsewhere).toMatchObject({ code: 'NOT_FOUND' });

    await runReaching(platform, owner, runId, ['succeeded']);
    const read = await callApi(
      registry.bus,
      BUS_APIS.getRun,
      { workspaceId, runId },
      {
        timeoutMs: CALL_TIMEOUT_MS,
      },
    );
    expect(read.run).toMatchObject({ id: runId, status: 'succeeded', credits_charged: 2 });
    const full = await callRunnerRoute(platform, 'get_run', owner, { params: { runId } });
    expect(full.body).toMatchObject({ run: { trigger: { type: 'mcp' }, input: { order: 7 } } });
    await expect(
      callApi(
        registry.bus,
        BUS_APIS.getRun,
        { workspaceId: randomUUID(), runId },
        {
          timeoutMs: CALL_TIMEOUT_MS,
        },
      ),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  test('at start, every webhook address and balance is republished and addresses of no workflow are removed', async () => {
    const { owner, workspaceId } = await newWorkspace(4);
    const created = await createWorkflow(owner, workspaceId, []);
    const webhookId = created.webhook?.id ?? '';
    const webhooks = await platform.kv.bucket(WEBHOOKS_BUCKET);
    const balances = await platform.kv.bucket(CREDIT_BALANCES_BUCKET);
    await webhooks.delete(webhookKey(webhookId));
    const stale = webhookKey(randomUUID());
    await webhooks.put(stale, encodeJson({ stale: true }));
    await balances.delete(creditBalanceKey(workspaceId));

    const restarted = await startRunner(platform);
    await restarted.stop();

    const entry = await webhooks.get(webhookKey(webhookId));
    expect(entry ? decodeJson(entry.value) : null).toMatchObject({
      webhookId,
      workflowId: created.workflow.id,
      status: 'draft',
    });
    expect(await webhooks.get(stale)).toBeNull();
    expect(await balanceSnapshot(workspaceId)).toBe(4);
  });

  /** What DEAD_LETTERS holds now whose bytes contain `text`, with their headers. */
  async function deadLettersHolding(text: string): Promise<Record<string, string>[]> {
    const found: Record<string, string>[] = [];
    const consumer = await platform.streams.consume(
      { stream: DEAD_LETTERS_STREAM, durable: `spec-dead-letters-${randomUUID().slice(0, 8)}` },
      async (message) => {
        if (new TextDecoder().decode(message.data).includes(text)) {
          found.push({ ...message.headers, subject: message.subject });
        }
        message.ack();
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.stop();
    return found;
  }

  test('a WEBHOOK_EVENTS message that does not parse is moved to the dead letters; the events after it are kept', async () => {
    const { owner, workspaceId } = await newWorkspace(0);
    const created = await createWorkflow(owner, workspaceId, []);
    const marker = randomUUID();
    const ingest = await asBusPrincipal(platform, 'webhook-ingest');
    await ingest.streams.publish(WEBHOOK_RECEIVED_SUBJECT, encodeJson({ not: marker }));
    await ingest.streams.publish(WEBHOOK_RECEIVED_SUBJECT, new TextEncoder().encode(`{${marker}`));
    const eventId = await publishTestEvent(created, { after: 'garbage' });
    await eventually(async () => {
      const events = await callRunnerRoute(platform, 'list_test_events', owner, {
        params: { id: created.workflow.id },
      });
      expect((events.body as { events: { id: string }[] }).events.map((event) => event.id)).toEqual(
        [eventId],
      );
    });
    await eventually(async () => {
      const moved = await deadLettersHolding(marker);
      expect(moved).toHaveLength(2);
      for (const headers of moved) {
        expect(headers).toMatchObject({
          subject: 'deadletter.workflow-runner-test-events',
          [DEAD_LETTER_HEADERS.stream]: WEBHOOK_EVENTS_STREAM,
          [DEAD_LETTER_HEADERS.subject]: WEBHOOK_RECEIVED_SUBJECT,
          [DEAD_LETTER_HEADERS.reason]: 'unparsable',
          [DEAD_LETTER_HEADERS.attempts]: '1',
        });
      }
    });
  });

  test('a WEBHOOK_EVENTS message no publisher of the stream signed is a dead letter, and a signed one naming another workspace or address starts nothing (issue 41 item 4)', async () => {
    const victim = await newWorkspace(10);
    const attacker = await newWorkspace(10);
    const target = await createWorkflow(victim.owner, victim.workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    const other = await createWorkflow(attacker.owner, attacker.workspaceId, []);
    const forgeries: Array<[string, Platform, WebhookReceived]> = [];
    const run = () => ({ runId: randomUUID(), inflightKey: null, notBefore: null });
    // Unsigned, as a hand-made message with a stolen NATS credential alone would be.
    forgeries.push(['unsigned', platform, webhookEventFor(target, { forged: 'unsigned' }, run())]);
    // Signed, but by a service that never publishes WEBHOOK_EVENTS.
    for (const principal of ['chat', 'mcp-registry', 'storage', 'gateway'] as const) {
      forgeries.push([
        principal,
        await asBusPrincipal(platform, principal),
        webhookEventFor(target, { forged: principal }, run()),
      ]);
    }
    const unsigned = forgeries.map(([, , event]) => event);
    for (const [, publisher, event] of forgeries) {
      await publisher.streams.publish(
        WEBHOOK_RECEIVED_SUBJECT,
        encodeJson({
          type: WEBHOOK_RECEIVED_SUBJECT,
          id: event.eventId,
          time: event.receivedAt,
          data: event,
        }),
        { messageId: event.eventId },
      );
    }
    // Signed by webhook-ingest, but the address is not the workflow's, or the workspace is not its own.
    const misaddressed = [
      {
        ...webhookEventFor(target, { forged: 'address' }, run()),
        webhookId: other.webhook?.id ?? randomUUID(),
      },
      {
        ...webhookEventFor(target, { forged: 'workspace' }, run()),
        workspaceId: attacker.workspaceId,
      },
    ];
    for (const event of misaddressed) await publishEvent(event);
    // A genuine event after them all arrives: the forgeries held nothing up.
    const genuine = await publishTestEvent(target, { genuine: true });
    await eventually(async () => {
      const events = await callRunnerRoute(platform, 'list_test_events', victim.owner, {
        params: { id: target.workflow.id },
      });
      expect((events.body as { events: { id: string }[] }).events.map((event) => event.id)).toEqual(
        [genuine],
      );
    });
    for (const event of [...unsigned, ...misaddressed]) {
      await expect(
        callRunnerRoute(platform, 'get_run', victim.owner, {
          params: { runId: event.run?.runId ?? '' },
        }),
      ).rejects.toThrow('Run not found');
    }
    await eventually(async () => {
      for (const event of unsigned) {
        const moved = await deadLettersHolding(event.eventId);
        expect(moved).toEqual([
          expect.objectContaining({ [DEAD_LETTER_HEADERS.reason]: 'unsigned' }),
        ]);
      }
    });
  });

  test('an event the database refuses holds back only itself, not the events written beside it', async () => {
    const { owner, workspaceId } = await newWorkspace(5);
    const created = await createWorkflow(owner, workspaceId, [
      { type: 'delay', name: 'pause', settings: { seconds: 0 } },
    ]);
    // A NUL in a JSON string: webhook-ingest refuses such bodies, jsonb cannot hold them.
    const refused = webhookEventFor(created, { note: 'a\u0000b' });
    const runId = randomUUID();
    const kept = [
      webhookEventFor(created, { n: 1 }),
      webhookEventFor(created, { n: 2 }, { runId, inflightKey: null, notBefore: null }),
    ];
    await Promise.all([refused, ...kept].map((event) => publishEvent(event)));

    await runReaching(platform, owner, runId, ['succeeded'], 8_000);
    await eventually(async () => {
      const events = await callRunnerRoute(platform, 'list_test_events', owner, {
        params: { id: created.workflow.id },
      });
      expect(
        (events.body as { events: { id: string }[] }).events.map((event) => event.id).sort(),
      ).toEqual(kept.map((event) => event.eventId).sort());
    });
    // Refused five times, a second apart and more, it is moved to the dead letters.
    await eventually(async () => {
      const moved = await deadLettersHolding(refused.eventId);
      expect(moved).toEqual([
        expect.objectContaining({
          [DEAD_LETTER_HEADERS.reason]: 'failed',
          [DEAD_LETTER_HEADERS.attempts]: String(MAX_FAILED_ATTEMPTS),
          [DEAD_LETTER_HEADERS.error]: expect.any(String),
        }),
      ]);
    }, 30_000);
  });

  test('test events arrive from WEBHOOK_EVENTS once per eventId, newest first, capped per workflow', async () => {
    const { owner, workspaceId } = await newWorkspace(0);
    const created = await createWorkflow(owner, workspaceId, []);
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      ids.push(await publishTestEvent(created, { index }));
      // Newest first is by receivedAt (milliseconds): events of one millisecond have no order.
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await eventually(async () => {
      const events = await callRunnerRoute(platform, 'list_test_events', owner, {
        params: { id: created.workflow.id },
      });
      expect((events.body as { events: { id: string }[] }).events.map((event) => event.id)).toEqual(
        [...ids].reverse(),
      );
    });

    const capped = createTestEventRepository({ db: platform.sql.db, capPerWorkflow: 2 });
    const base = Date.now();
    const event = (id: string, offsetMs: number) => ({
      id,
      workflowId: created.workflow.id,
      workspaceId,
      webhookId: created.webhook?.id ?? randomUUID(),
      receivedAt: new Date(base + offsetMs),
      body: { id },
      headers: {},
    });
    const newer = [randomUUID(), randomUUID()];
    await capped.insertMany([event(newer[0] ?? '', 1_000), event(newer[0] ?? '', 1_000)]);
    await capped.insertMany([event(newer[1] ?? '', 2_000)]);
    const listed = async () => (await capped.list(created.workflow.id)).map((row) => row.id);
    // Before the prune the older events are still stored, and the list leaves them out.
    expect(await listed()).toEqual([newer[1], newer[0]]);
    expect(await capped.find(created.workflow.id, ids[0] ?? '')).toBeDefined();
    await capped.prune([created.workflow.id]);
    expect(await listed()).toEqual([newer[1], newer[0]]);
    for (const id of ids) expect(await capped.find(created.workflow.id, id)).toBeUndefined();
  });

  test('the runner prunes a workflow that received events to its newest TEST_EVENTS_PER_WORKFLOW', async () => {
    const { owner, workspaceId } = await newWorkspace(0);
    const created = await createWorkflow(owner, workspaceId, []);
    const cap = 50;
    const base = Date.now();
    const events = Array.from({ length: cap + 2 }, (_unused, index) => ({
      ...webhookEventFor(created, { index }),
      receivedAt: new Date(base + index).toISOString(),
    }));
    const stored = createTestEventRepository({ db: platform.sql.db, capPerWorkflow: cap });
    const oldest = events.slice(0, 2).map((event) => event.eventId);
    // The two oldest are stored first, so that their absence later can only be the prune's.
    await Promise.all(events.slice(0, 2).map((event) => publishEvent(event)));
    await eventually(async () => {
      for (const id of oldest) expect(await stored.find(created.workflow.id, id)).toBeDefined();
    });
    await Promise.all(events.slice(2).map((event) => publishEvent(event)));

    const newestFirst = events
      .slice(2)
      .map((event) => event.eventId)
      .reverse();
    await eventually(async () => {
      const listed = await callRunnerRoute(platform, 'list_test_events', owner, {
        params: { id: created.workflow.id },
      });
      expect((listed.body as { events: { id: string }[] }).events.map((event) => event.id)).toEqual(
        newestFirst,
      );
      for (const id of oldest) expect(await stored.find(created.workflow.id, id)).toBeUndefined();
    });
  });
});
