import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  CREDIT_BALANCES_BUCKET,
  Envelope,
  REQUEST_BODIES_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOKS_BUCKET,
  WEBHOOK_EVENTS_STREAM,
  WEBHOOK_INFLIGHT_BUCKET,
  WEBHOOK_RECEIVED_SUBJECT,
  WebhookReceived,
  creditBalanceKey,
  webhookKey,
  type WebhookAddress,
} from '@wap/contracts';
import { metrics } from '@wap/observability';
import { decodeJson, encodeJson } from '@wap/platform';
import {
  DEFAULT_WEBHOOK_INGEST_CONFIG,
  type WebhookIngestConfig,
} from '@wap/webhook-ingest-service';
import { http, startStack, uniqueEmail, type Runtime, type TestStack } from './stack';
import { WEBHOOK_DOORS, doorUrl, withDoor, type WebhookDoor } from './webhook-doors';

/**
 * Endpoint 11 through each door (the gateway, and webhook-ingest's own port). workflow-runner's side of the contract is played here: the
 * test publishes the addresses and credit balances it would publish, and reads WEBHOOK_EVENTS
 * with a consumer of its own, so every assertion is on what was really stored.
 */
const INACTIVE = 'Webhook is inactive. Test payload saved.';
const DEPLETED = 'Your credit balance is depleted. Upgrade your plan to continue running flows.';
const INSUFFICIENT = 'Insufficient credits to run this flow. Upgrade your plan to continue.';

const WebhookReceivedMessage = Envelope(WebhookReceived);

/** A run a stored request asks for: the event's `run` with the event it belongs to. */
type RecordedRun = NonNullable<WebhookReceived['run']> &
  Pick<WebhookReceived, 'eventId' | 'workflowId' | 'workspaceId' | 'payload'>;

async function record(
  stack: TestStack,
): Promise<{ recorded: { events: WebhookReceived[] }; stop: () => Promise<void> }> {
  const recorded: { events: WebhookReceived[] } = { events: [] };
  const consumer = await stack.platform.streams.consume(
    {
      stream: WEBHOOK_EVENTS_STREAM,
      durable: `e2e-events-${randomUUID().slice(0, 8)}`,
      filterSubject: WEBHOOK_RECEIVED_SUBJECT,
    },
    async (message) => {
      recorded.events.push(WebhookReceivedMessage.parse(decodeJson(message.data)).data);
      message.ack();
    },
  );
  return { recorded, stop: () => consumer.stop() };
}

async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Lets anything still in flight arrive before counting what was stored. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

/** POSTs to an address through the door at `origin`. */
function post(
  origin: string,
  webhookId: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return http(`${origin}/webhooks/${webhookId}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const webhookConfig: WebhookIngestConfig = {
  ...DEFAULT_WEBHOOK_INGEST_CONFIG,
  rateLimit: { perSecond: 10_000, burst: 10_000 },
};

/** The count of webhook requests with these labels in this process's registry. */
async function countOf(labels: { entry: string; outcome: string; reason: string }) {
  const { values } = await metrics.webhookRequests.get();
  const series = values.find(
    (value) =>
      value.labels['entry'] === labels.entry &&
      value.labels['outcome'] === labels.outcome &&
      value.labels['reason'] === labels.reason,
  );
  return series?.value ?? 0;
}

function describeEndpoint11(runtime: Runtime, door: WebhookDoor) {
  let stack: TestStack;
  let recording: Awaited<ReturnType<typeof record>>;
  let cookie: string;
  /** Where webhook requests go: the gateway, or webhook-ingest's own door. */
  let hooks: string;

  beforeAll(async () => {
    stack = await startStack(runtime, {
      services: { webhookIngest: withDoor(door, webhookConfig) },
    });
    hooks = doorUrl(stack, door);
    recording = await record(stack);
    cookie = await stack.cookieFor(uniqueEmail('hooks'));
  });
  afterAll(async () => {
    await recording.stop();
    await stack.stop();
  });

  async function newWorkspace(): Promise<string> {
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Hooks' },
    });
    expect(created.status).toBe(201);
    return (created.body as { workspace: { id: string } }).workspace.id;
  }

  async function setBalance(workspaceId: string, balance: number) {
    const bucket = await stack.platform.kv.bucket(CREDIT_BALANCES_BUCKET);
    await bucket.put(creditBalanceKey(workspaceId), encodeJson({ balance }));
  }

  /** Publishes an address as workflow-runner does; a workspace with 100 credits unless given. */
  async function newAddress(
    overrides: Partial<WebhookAddress> = {},
    balance = 100,
  ): Promise<WebhookAddress> {
    const workspaceId = overrides.workspaceId ?? (await newWorkspace());
    const address: WebhookAddress = {
      webhookId: randomUUID(),
      workflowId: randomUUID(),
      workspaceId,
      status: 'live',
      customResponse: null,
      runningHours: null,
      queueOutsideWindow: true,
      creditCost: 1,
      ...overrides,
    };
    await setBalance(workspaceId, balance);
    const bucket = await stack.platform.kv.bucket(WEBHOOKS_BUCKET);
    await bucket.put(webhookKey(address.webhookId), encodeJson(address));
    return address;
  }

  const runsOf = (workflowId: string): RecordedRun[] =>
    recording.recorded.events.flatMap(({ run, eventId, workspaceId, payload, ...event }) =>
      run && event.workflowId === workflowId
        ? [{ ...run, eventId, workflowId, workspaceId, payload }]
        : [],
    );
  const eventsOf = (workflowId: string) =>
    recording.recorded.events.filter((event) => event.workflowId === workflowId);

  test('a live workflow: 200 after the run request is stored, and the request is a test event', async () => {
    const address = await newAddress();
    const response = await post(hooks, address.webhookId, { order: { id: 7 } });
    expect(response.status).toBe(200);
    const body = response.body as { eventId: string };
    expect(response.body).toEqual({
      success: true,
      workflowId: address.workflowId,
      eventId: body.eventId,
      triggered: 1,
      skipped: 0,
    });
    await eventually(() => runsOf(address.workflowId).length === 1);
    const [run] = runsOf(address.workflowId);
    expect(run).toMatchObject({
      workflowId: address.workflowId,
      workspaceId: address.workspaceId,
      eventId: body.eventId,
      payload: { kind: 'inline', body: { order: { id: 7 } } },
      notBefore: null,
    });
    expect(run?.inflightKey).toEqual(expect.any(String));
    await eventually(() => eventsOf(address.workflowId).length === 1);
    expect(eventsOf(address.workflowId)[0]).toMatchObject({
      eventId: body.eventId,
      webhookId: address.webhookId,
      payload: { kind: 'inline', body: { order: { id: 7 } } },
    });
  });

  test('each request is counted once, under its entry, outcome and reason', async () => {
    const address = await newAddress();
    const series = [
      { entry: 'custom', outcome: 'accepted', reason: 'ok' },
      { entry: 'custom', outcome: 'skipped', reason: 'duplicate' },
      { entry: 'custom', outcome: 'refused', reason: 'NOT_FOUND' },
      { entry: 'custom', outcome: 'refused', reason: 'INVALID_JSON' },
    ];
    const before = await Promise.all(series.map(countOf));
    const key = randomUUID();
    expect(
      (await post(hooks, address.webhookId, { m: 1 }, { 'idempotency-key': key })).status,
    ).toBe(200);
    expect(
      (await post(hooks, address.webhookId, { m: 1 }, { 'idempotency-key': key })).status,
    ).toBe(200);
    expect((await post(hooks, randomUUID(), { m: 1 })).status).toBe(404);
    expect((await post(hooks, address.webhookId, 'not json')).status).toBe(400);
    const after = await Promise.all(series.map(countOf));
    expect(after.map((count, index) => count - (before[index] ?? 0))).toEqual([1, 1, 1, 1]);
  });

  test('a gzip body is inflated, an encoding no entry reads is 415, the request id comes back', async () => {
    const address = await newAddress();
    const compressed = await fetch(`${hooks}/webhooks/${address.webhookId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'x-request-id': 'e2e-gzip-request',
      },
      body: gzipSync(JSON.stringify({ zipped: true })),
    });
    expect(compressed.status).toBe(200);
    expect(compressed.headers.get('x-request-id')).toBe('e2e-gzip-request');
    expect(await compressed.json()).toMatchObject({ triggered: 1, skipped: 0 });
    await eventually(() => runsOf(address.workflowId).length === 1);
    expect(runsOf(address.workflowId)[0]?.payload).toEqual({
      kind: 'inline',
      body: { zipped: true },
    });

    const unreadable = await post(hooks, address.webhookId, '{"a":1}', {
      'content-encoding': 'compress',
    });
    expect(unreadable.status).toBe(415);
    expect(unreadable.body).toEqual({
      error: 'Unsupported content encoding',
      code: 'UNSUPPORTED_MEDIA_TYPE',
    });
    await settle();
    expect(eventsOf(address.workflowId)).toHaveLength(1);
  });

  test('a draft workflow: 200 inactive, a stored test event, no run', async () => {
    const address = await newAddress({ status: 'draft' });
    const response = await post(hooks, address.webhookId, { hello: 'draft' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: INACTIVE,
      workflowId: address.workflowId,
      triggered: 0,
    });
    await eventually(() => eventsOf(address.workflowId).length === 1);
    expect(eventsOf(address.workflowId)[0]?.payload).toEqual({
      kind: 'inline',
      body: { hello: 'draft' },
    });
    await settle();
    expect(runsOf(address.workflowId)).toHaveLength(0);
  });

  test.each([
    ['form-encoded', 'a=1&b=2', 'application/x-www-form-urlencoded'],
    ['XML', '<order><id>1</id></order>', 'application/xml'],
    ['empty', '', 'application/json'],
    ['broken JSON', '{"a": ', 'application/json'],
  ])('a %s body is 400 Invalid JSON body, and nothing is stored', async (_label, body, type) => {
    const address = await newAddress();
    const response = await http(`${hooks}/webhooks/${address.webhookId}`, {
      method: 'POST',
      body,
      headers: { 'content-type': type },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Invalid JSON body' });
    await settle();
    expect(eventsOf(address.workflowId)).toHaveLength(0);
  });

  test('JSON nested past 256 levels is 400 Invalid JSON body, parked size included; 256 levels are kept', async () => {
    const address = await newAddress({ status: 'draft' });
    const nested = (depth: number, padding = '') =>
      `${'['.repeat(depth)}${padding}${']'.repeat(depth)}`;
    const atLimit = await post(hooks, address.webhookId, nested(256));
    expect(atLimit.status).toBe(200);
    for (const body of [
      nested(257),
      nested(5_000),
      // Over 512 KiB, so it would be parked in the object store, and 100,000 deep.
      nested(100_000, `"${'z'.repeat(400 * 1024)}"`),
    ]) {
      const response = await post(hooks, address.webhookId, body);
      expect({ size: body.length, status: response.status, body: response.body }).toEqual({
        size: body.length,
        status: 400,
        body: { error: 'Invalid JSON body' },
      });
    }
    await eventually(() => eventsOf(address.workflowId).length === 1);
    await settle();
    expect(eventsOf(address.workflowId)).toHaveLength(1);
  });

  test('an unknown address, a malformed one and a removed trigger are 404 Webhook not found', async () => {
    for (const webhookId of [randomUUID(), 'not-a-uuid']) {
      const response = await post(hooks, webhookId, { a: 1 });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Webhook not found' });
      // The address is looked up before the body is read as JSON.
      const form = await post(hooks, webhookId, 'a=1', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect({ status: form.status, body: form.body }).toEqual({
        status: 404,
        body: { error: 'Webhook not found' },
      });
    }
    const address = await newAddress();
    expect((await post(hooks, address.webhookId, { before: true })).status).toBe(200);
    const bucket = await stack.platform.kv.bucket(WEBHOOKS_BUCKET);
    await bucket.delete(webhookKey(address.webhookId));
    await eventually(async () => (await post(hooks, address.webhookId, { a: 2 })).status === 404);
    const removed = await post(hooks, address.webhookId, { a: 3 });
    expect(removed.body).toEqual({ error: 'Webhook not found' });
  });

  test('a deleted workspace is 410 Workspace has been deleted', async () => {
    const address = await newAddress();
    expect((await post(hooks, address.webhookId, { before: true })).status).toBe(200);
    const deleted = await http(`${stack.url}/workspaces/${address.workspaceId}`, {
      method: 'DELETE',
      cookie,
    });
    expect(deleted.status).toBe(204);
    await eventually(async () => (await post(hooks, address.webhookId, { a: 1 })).status === 410);
    const gone = await post(hooks, address.webhookId, { a: 2 });
    expect(gone.body).toEqual({ error: 'Workspace has been deleted' });
  });

  test.each([
    ['Idempotency-Key'],
    ['X-Idempotency-Key'],
    ['X-Webhook-Id'],
    ['X-Delivery-Id'],
    ['X-Event-Id'],
    ['X-Message-Id'],
    ['X-Request-Id'],
    ['idempotency-KEY'],
  ])('a repeat of a %s value is skipped with the eventId it repeats', async (header) => {
    const address = await newAddress();
    const value = randomUUID();
    const first = await post(hooks, address.webhookId, { n: 1 }, { [header]: value });
    expect(first.body).toMatchObject({ triggered: 1, skipped: 0 });
    // Another body under the same value is the same event, sent again.
    const repeat = await post(hooks, address.webhookId, { n: 2 }, { [header]: value });
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({
      success: true,
      workflowId: address.workflowId,
      eventId: (first.body as { eventId: string }).eventId,
      triggered: 0,
      skipped: 1,
    });
    const other = await post(hooks, address.webhookId, { n: 1 }, { [header]: randomUUID() });
    expect(other.body).toMatchObject({ triggered: 1 });
    await settle();
    expect(runsOf(address.workflowId)).toHaveLength(2);
    // Every valid request is kept as a test event, the skipped repeat included.
    expect(eventsOf(address.workflowId)).toHaveLength(3);
  });

  test('200 concurrent requests with one Idempotency-Key start exactly one run', async () => {
    const address = await newAddress();
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        post(hooks, address.webhookId, { attempt: i }, { 'Idempotency-Key': key }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(200).fill(200));
    const bodies = responses.map(
      (response) => response.body as { triggered: number; eventId: string },
    );
    expect(bodies.filter((body) => body.triggered === 1)).toHaveLength(1);
    expect(new Set(bodies.map((body) => body.eventId)).size).toBe(1);
    await eventually(() => runsOf(address.workflowId).length >= 1);
    await settle();
    expect(runsOf(address.workflowId)).toHaveLength(1);
    expect(runsOf(address.workflowId)[0]).toMatchObject({ eventId: bodies[0]?.eventId });
  });

  test('50 concurrent identical requests without a key while the run is running: one run; after it ends, the same request runs again', async () => {
    const address = await newAddress();
    const body = { customer: 'c-1', amount: 5 };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => post(hooks, address.webhookId, body)),
    );
    const bodies = responses.map(
      (response) => response.body as { triggered: number; skipped: number; eventId: string },
    );
    expect(bodies.filter((b) => b.triggered === 1)).toHaveLength(1);
    expect(bodies.filter((b) => b.skipped === 1)).toHaveLength(49);
    expect(new Set(bodies.map((b) => b.eventId)).size).toBe(1);
    // Key order and whitespace do not make a request different.
    const reordered = await post(hooks, address.webhookId, '{ "amount": 5,\n "customer": "c-1" }');
    expect(reordered.body).toMatchObject({ triggered: 0, skipped: 1 });
    // A different body is another request.
    expect((await post(hooks, address.webhookId, { ...body, amount: 6 })).body).toMatchObject({
      triggered: 1,
    });
    await eventually(() => runsOf(address.workflowId).length === 2);
    const [run] = runsOf(address.workflowId);

    // The run ends: workflow-runner deletes the in-flight key it was given.
    const inflight = await stack.platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
    expect(await inflight.get(run?.inflightKey ?? '')).not.toBeNull();
    await inflight.delete(run?.inflightKey ?? '');
    const again = await post(hooks, address.webhookId, body);
    expect(again.body).toMatchObject({ triggered: 1, skipped: 0 });
    await eventually(() => runsOf(address.workflowId).length === 3);
  });

  test.each([
    ['a balance of zero', 0, 1, DEPLETED],
    ['a negative balance, even for a free workflow', -5, 0, DEPLETED],
    ["a balance below the workflow's cost", 3, 5, INSUFFICIENT],
  ])(
    '%s is 402 with its message, and no run starts',
    async (_label, balance, creditCost, message) => {
      const address = await newAddress({ creditCost }, balance);
      const response = await post(hooks, address.webhookId, { a: 1 });
      expect(response.status).toBe(402);
      expect(response.body).toEqual({ code: 'INSUFFICIENT_CREDITS', error: message, message });
      await settle();
      expect(runsOf(address.workflowId)).toHaveLength(0);
      // The refused request released its claim: once credits arrive, the same request runs.
      await setBalance(address.workspaceId, 10);
      await eventually(async () => {
        const retried = await post(hooks, address.webhookId, { a: 1 });
        return (retried.body as { triggered?: number }).triggered === 1;
      });
    },
  );

  test('a workspace without any credit balance published is depleted', async () => {
    const address = await newAddress();
    const bucket = await stack.platform.kv.bucket(CREDIT_BALANCES_BUCKET);
    await bucket.delete(creditBalanceKey(address.workspaceId));
    const response = await post(hooks, address.webhookId, { a: 1 });
    expect(response.status).toBe(402);
    expect(response.body).toMatchObject({ message: DEPLETED });
  });

  describe('custom response', () => {
    test('replaces the started 200 body and echoes {{body.<field>}}', async () => {
      const address = await newAddress({
        customResponse: {
          enabled: true,
          body: '{"status": "ok", "order": "{{body.order.id}}", "echo": "hi {{body.name}}"}',
        },
      });
      const response = await post(hooks, address.webhookId, { order: { id: 42 }, name: 'Ada' });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok', order: 42, echo: 'hi Ada' });
      await eventually(() => runsOf(address.workflowId).length === 1);
    });

    test('replaces the draft 200 body too', async () => {
      const address = await newAddress({
        status: 'draft',
        customResponse: { enabled: true, body: '' },
      });
      const response = await post(hooks, address.webhookId, { a: 1 });
      expect(response.body).toEqual({ status: 'ok' });
    });

    test('text that is not JSON goes out as text/plain', async () => {
      const address = await newAddress({
        customResponse: { enabled: true, body: 'Thanks {{body.name}}!' },
      });
      const response = await post(hooks, address.webhookId, { name: 'Ada' });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      // The sender's text is never sniffed into HTML or script (issue 41 item 6).
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.text).toBe('Thanks Ada!');
    });

    test("quoted and bare placeholders mixed are filled as JSON: a sender's value cannot add a key", async () => {
      const address = await newAddress({
        customResponse: { enabled: true, body: '{"a": "{{body.x}}", "n": {{body.n}}}' },
      });
      const x = '", "admin": true, "z": "';
      const response = await post(hooks, address.webhookId, { x, n: 5 });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body).toEqual({ a: x, n: 5 });
    });

    test('a value that cannot be filled sends the default response', async () => {
      const address = await newAddress({
        customResponse: { enabled: true, body: '{"id": "{{body.missing}}"}' },
      });
      const response = await post(hooks, address.webhookId, { name: 'Ada' });
      expect(response.body).toMatchObject({
        success: true,
        workflowId: address.workflowId,
        triggered: 1,
        skipped: 0,
      });
    });

    test('never replaces an error', async () => {
      const address = await newAddress(
        { customResponse: { enabled: true, body: '{"status": "ok"}' } },
        0,
      );
      expect((await post(hooks, address.webhookId, 'not json')).body).toEqual({
        error: 'Invalid JSON body',
      });
      expect((await post(hooks, address.webhookId, { a: 1 })).status).toBe(402);
    });
  });

  describe('running hours', () => {
    /** A one-minute window twelve hours away: closed now, on every day. */
    function closedNow() {
      const hour = (new Date().getUTCHours() + 12) % 24;
      const start = `${String(hour).padStart(2, '0')}:00`;
      return { timezone: 'UTC', days: [1, 2, 3, 4, 5, 6, 7], start, end: `${start.slice(0, 3)}01` };
    }

    test('outside the window with queueing on, the run waits for the window and the answer says so', async () => {
      const hours = closedNow();
      const address = await newAddress({ runningHours: hours, queueOutsideWindow: true });
      const response = await post(hooks, address.webhookId, { a: 1 });
      expect(response.status).toBe(200);
      const body = response.body as { notBefore: string };
      expect(response.body).toMatchObject({
        success: true,
        triggered: 1,
        skipped: 0,
        outsideRunningHours: 'queued',
      });
      const notBefore = new Date(body.notBefore);
      expect(notBefore.getUTCHours()).toBe(Number(hours.start.slice(0, 2)));
      expect(notBefore.getUTCMinutes()).toBe(0);
      await eventually(() => runsOf(address.workflowId).length === 1);
      expect(runsOf(address.workflowId)[0]?.notBefore).toBe(body.notBefore);
    });

    test('outside the window with queueing off, the request is dropped and the answer says so', async () => {
      const address = await newAddress({ runningHours: closedNow(), queueOutsideWindow: false });
      const response = await post(hooks, address.webhookId, { a: 1 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        success: true,
        triggered: 0,
        skipped: 0,
        outsideRunningHours: 'dropped',
      });
      await eventually(() => eventsOf(address.workflowId).length === 1);
      await settle();
      expect(runsOf(address.workflowId)).toHaveLength(0);
    });
  });

  test('GET describes the address in text and starts no run; an unknown address is 404', async () => {
    const address = await newAddress();
    const response = await http(`${hooks}/webhooks/${address.webhookId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    // No public origin configured: the request's own, plain http as it is a loopback address.
    expect(response.text).toContain(`Send POST ${hooks}/webhooks/${address.webhookId} `);
    const unknown = await http(`${hooks}/webhooks/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Webhook not found' });
    await settle();
    expect(runsOf(address.workflowId)).toHaveLength(0);
    expect(eventsOf(address.workflowId)).toHaveLength(0);
  });

  test('a request over plain http is redirected to the https address with 308', async () => {
    const address = await newAddress();
    const port = new URL(hooks).port;
    const { status, location } = await new Promise<{ status: number; location?: string }>(
      (resolve, reject) => {
        const outgoing = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: `/webhooks/${address.webhookId}`,
            headers: { host: 'hooks.example.com', 'content-type': 'application/json' },
          },
          (incoming) => {
            incoming.resume();
            resolve({ status: incoming.statusCode ?? 0, location: incoming.headers.location });
          },
        );
        outgoing.on('error', reject);
        outgoing.end('{"a":1}');
      },
    );
    expect(status).toBe(308);
    expect(location).toBe(`https://hooks.example.com/webhooks/${address.webhookId}`);
    await settle();
    expect(eventsOf(address.workflowId)).toHaveLength(0);
  });

  test('a body over 1 MiB is 413; a large body under it is kept in the object store', async () => {
    const address = await newAddress();
    const tooLarge = JSON.stringify({ data: 'x'.repeat(1024 * 1024) });
    const refused = await post(hooks, address.webhookId, tooLarge);
    expect(refused.status).toBe(413);
    expect(refused.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const large = JSON.stringify({ data: 'y'.repeat(700 * 1024) });
    const accepted = await post(hooks, address.webhookId, large);
    expect(accepted.body).toMatchObject({ triggered: 1 });
    await eventually(() => runsOf(address.workflowId).length === 1);
    // The runner deletes the body once it has stored the event; that it arrives whole is
    // checked through the test events and the run (workflows e2e spec). Through the gateway it
    // is the body the gateway parked (decision 126); the direct door puts it there itself.
    expect(runsOf(address.workflowId)[0]?.payload).toMatchObject({
      kind: 'object',
      bucket: door === 'gateway' ? REQUEST_BODIES_BUCKET : WEBHOOK_PAYLOADS_BUCKET,
      size: Buffer.byteLength(large),
    });
  });
}

describe.each(WEBHOOK_DOORS)(
  'custom webhook trigger (endpoint 11) on the %s runtime through the %s door',
  (runtime, door) => {
    describeEndpoint11(runtime, door);
  },
);

describe.each(WEBHOOK_DOORS)(
  'webhook rate limit on the %s runtime through the %s door',
  (runtime, door) => {
    let stack: TestStack;
    let hooks: string;
    beforeAll(async () => {
      stack = await startStack(runtime, {
        services: {
          webhookIngest: withDoor(door, {
            ...DEFAULT_WEBHOOK_INGEST_CONFIG,
            rateLimit: { perSecond: 0.5, burst: 3 },
          }),
        },
      });
      hooks = doorUrl(stack, door);
    });
    afterAll(async () => {
      await stack.stop();
    });

    test('beyond the burst an address gets 429 with Retry-After; other addresses are not affected', async () => {
      const limited = randomUUID();
      for (let i = 0; i < 3; i += 1) {
        expect((await post(hooks, limited, { i })).status).toBe(404);
      }
      const refused = await post(hooks, limited, { i: 4 });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
      expect(Number(refused.headers.get('retry-after'))).toBe(2);
      expect((await post(hooks, randomUUID(), { i: 1 })).status).toBe(404);
    });
  },
);
