import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CREDIT_BALANCES_BUCKET,
  CREDIT_MESSAGES,
  creditBalanceKey,
  REQUEST_BODIES_BUCKET,
  WEBHOOK_RECEIVED_SUBJECT,
  WEBHOOKS_BUCKET,
  webhookKey,
  type WebhookReceived,
} from '@wap/contracts';
import { decodeJson, encodeJson } from '@wap/platform';
import { eventually } from '@wap/testing';
import {
  http,
  RUNTIMES,
  startStack,
  uniqueEmail,
  type JsonResponse,
  type TestStack,
} from './stack';

interface Owner {
  cookie: string;
  workspaceId: string;
}
interface CreatedWorkflow {
  workflow: {
    id: string;
    status: string;
    name: string;
    credit_cost: number;
    steps: { type: string; name: string; settings: Record<string, unknown> }[];
    trigger: { webhook_id: string } | null;
    settings: Record<string, unknown>;
    last_test_run_at: string | null;
  };
  webhook: { id: string; url: string } | null;
}
interface RunBody {
  id: string;
  status: string;
  input: unknown;
  error: string | null;
  credits_charged: number;
  trigger: Record<string, unknown>;
  steps: {
    name: string;
    status: string;
    error: string | null;
    input: unknown;
    credits_charged: number;
  }[];
}

const delayStep = { type: 'delay', name: 'pause', settings: { seconds: 0 } };
const httpStep = (url: string) => ({
  type: 'http_request',
  name: 'call',
  settings: { method: 'POST', url, body: { who: '{{Custom Webhook.user.name}}' } },
});

describe.each(RUNTIMES)('workflows and runs through the gateway on the %s runtime', (runtime) => {
  let stack: TestStack;
  let adminCookie: string;

  beforeAll(async () => {
    stack = await startStack(runtime, {
      services: {
        // Only the name localhost is allow-listed: the local target server below is reachable,
        // a private IP literal is still refused.
        workflowRunner: {
          SSRF_ALLOWLIST: 'localhost',
          PUBLIC_BASE_URL: 'https://automation.example.com',
        },
      },
    });
    adminCookie = await stack.cookieFor(uniqueEmail('admin'), { platformAdmin: true });
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function newOwner(label: string, credits = 0): Promise<Owner> {
    const cookie = await stack.cookieFor(uniqueEmail(label));
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: `${label} workspace` },
    });
    expect(created.status).toBe(201);
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    if (credits > 0) {
      const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: adminCookie,
        body: { amount: credits, reason: 'e2e' },
      });
      expect(granted.status).toBe(201);
    }
    return { cookie, workspaceId };
  }

  async function createWorkflow(owner: Owner, extra: Record<string, unknown> = {}) {
    const response = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Orders',
        trigger: { type: 'custom_webhook' },
        steps: [delayStep],
        ...extra,
      },
    });
    expect(response.status).toBe(201);
    return response.body as CreatedWorkflow;
  }

  async function published(webhookId: string): Promise<Record<string, unknown> | null> {
    const bucket = await stack.platform.kv.bucket(WEBHOOKS_BUCKET);
    const entry = await bucket.get(webhookKey(webhookId));
    return entry ? (decodeJson(entry.value) as Record<string, unknown>) : null;
  }

  /** What webhook-ingest appends to WEBHOOK_EVENTS for every valid request. */
  async function receiveWebhook(
    created: CreatedWorkflow,
    workspaceId: string,
    body: unknown,
    receivedAt = new Date(),
  ) {
    const eventId = randomUUID();
    const data: WebhookReceived = {
      eventId,
      webhookId: created.webhook?.id ?? randomUUID(),
      workflowId: created.workflow.id,
      workspaceId,
      receivedAt: receivedAt.toISOString(),
      headers: { 'content-type': 'application/json', 'x-e2e': '1' },
      payload: { kind: 'inline', body },
    };
    // Signed with webhook-ingest's key, as webhook-ingest publishes it (decision 150).
    await (
      await stack.as('webhook-ingest')
    ).streams.publish(
      WEBHOOK_RECEIVED_SUBJECT,
      encodeJson({ type: WEBHOOK_RECEIVED_SUBJECT, id: eventId, time: data.receivedAt, data }),
      { messageId: eventId },
    );
    return eventId;
  }

  /** Receives `event` at the workflow's address, waits until it is its test event, runs it to its end. */
  async function runOnTestEvent(
    owner: Owner,
    created: CreatedWorkflow,
    event: unknown,
  ): Promise<RunBody> {
    await receiveWebhook(created, owner.workspaceId, event);
    await eventually(async () => {
      const response = await http(`${stack.url}/workflows/${created.workflow.id}/test-events`, {
        cookie: owner.cookie,
      });
      expect((response.body as { events: unknown[] }).events).toHaveLength(1);
    });
    const started = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    return finishedRun(owner.cookie, (started.body as { runId: string }).runId);
  }

  async function finishedRun(cookie: string, runId: string): Promise<RunBody> {
    return eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie });
      expect(response.status).toBe(200);
      const { run } = response.body as { run: RunBody };
      expect(['succeeded', 'failed']).toContain(run.status);
      return run;
    });
  }

  test('GET /workflows/step-types lists every type with its credit price and settings JSON Schema', async () => {
    const owner = await newOwner('types');
    const response = await http(`${stack.url}/workflows/step-types`, { cookie: owner.cookie });
    expect(response.status).toBe(200);
    const types = (
      response.body as {
        step_types: {
          type: string;
          credit_price: number;
          settings_schema: Record<string, unknown>;
        }[];
      }
    ).step_types;
    expect(types.map((type) => [type.type, type.credit_price])).toEqual([
      ['http_request', 1],
      ['delay', 0],
      ['mcp_tool', 2],
      ['assistant_prompt', 5],
      ['approval', 0],
      ['table_row', 1],
      // Control steps are free: the steps they run are charged (decision 165).
      ['if', 0],
      ['switch', 0],
      ['for_each', 0],
      ['call_workflow', 0],
      ['set', 0],
      ['stop', 0],
    ]);
    expect(types[0]?.settings_schema).toMatchObject({
      type: 'object',
      required: ['method', 'url'],
      properties: { method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] } },
    });
    expect((await http(`${stack.url}/workflows/step-types`)).status).toBe(401);
  });

  test('approval reviewers must be members: 400 with each outsider named, at create and at update', async () => {
    const owner = await newOwner('reviewers');
    const outsider = await newOwner('outsider');
    const idOf = async (cookie: string) =>
      ((await http(`${stack.url}/me`, { cookie })).body as { user: { id: string } }).user.id;
    const [ownerId, outsiderId] = [await idOf(owner.cookie), await idOf(outsider.cookie)];
    const approval = (reviewerIds: string[]) => ({
      type: 'approval',
      name: 'review',
      settings: { reviewerIds, message: 'ok?' },
    });
    const refusal = {
      error: 'Approval reviewers must be workspace members',
      code: 'VALIDATION_ERROR',
      details: [
        { path: 'body.steps.1.settings.reviewerIds.1', message: 'Not a member of this workspace' },
        { path: 'body.steps.1.settings.reviewerIds.2', message: 'Not a member of this workspace' },
      ],
    };
    const steps = [delayStep, approval([ownerId, outsiderId, randomUUID()])];
    const refused = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'Reviewed',
        trigger: { type: 'custom_webhook' },
        steps,
      },
    });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: refusal });
    const created = await createWorkflow(owner, { steps: [delayStep, approval([ownerId])] });
    const updated = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { steps },
    });
    expect({ status: updated.status, body: updated.body }).toEqual({ status: 400, body: refusal });
  });

  test('POST /workflows: 201 draft with its address, published to the webhooks bucket; 400 on bad steps; 404 outside the workspace', async () => {
    const owner = await newOwner('create');
    const created = await createWorkflow(owner, {
      trigger: { type: 'custom_webhook', customResponse: { enabled: true, body: '{"ok":1}' } },
      steps: [delayStep, httpStep('https://example.com/hook')],
      settings: { queueOutsideWindow: false },
    });
    expect(created.workflow).toMatchObject({
      status: 'draft',
      name: 'Orders',
      credit_cost: 1,
      last_test_run_at: null,
      settings: { runningHours: null, queueOutsideWindow: false, stopOnNodeFailure: true },
    });
    expect(created.webhook).toEqual({
      id: created.workflow.trigger?.webhook_id,
      url: `https://automation.example.com/webhooks/${created.workflow.trigger?.webhook_id}`,
    });
    expect(await published(created.webhook?.id ?? '')).toEqual({
      webhookId: created.webhook?.id,
      workflowId: created.workflow.id,
      workspaceId: owner.workspaceId,
      status: 'draft',
      customResponse: { enabled: true, body: '{"ok":1}' },
      runningHours: null,
      queueOutsideWindow: false,
      creditCost: 1,
    });

    const invalid: unknown[] = [
      {
        workspaceId: owner.workspaceId,
        name: 'x',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'teleport', settings: {} }],
      },
      {
        workspaceId: owner.workspaceId,
        name: 'x',
        trigger: { type: 'custom_webhook' },
        steps: [delayStep, delayStep],
      },
      {
        workspaceId: owner.workspaceId,
        name: 'x',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', settings: { seconds: -1 } }],
      },
      { workspaceId: 'not-a-uuid', name: 'x', trigger: { type: 'custom_webhook' }, steps: [] },
    ];
    for (const body of invalid) {
      const response = await http(`${stack.url}/workflows`, {
        method: 'POST',
        cookie: owner.cookie,
        body,
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
    const outsider = await newOwner('outsider');
    const foreign = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: outsider.cookie,
      body: {
        workspaceId: owner.workspaceId,
        name: 'x',
        trigger: { type: 'custom_webhook' },
        steps: [],
      },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  test('members only: every workflow route answers 404 to a non-member and 401 without a session', async () => {
    const owner = await newOwner('private', 5);
    const created = await createWorkflow(owner);
    const runId = (
      (
        await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
          method: 'POST',
          cookie: owner.cookie,
        })
      ).body as { runId: string }
    ).runId;
    const outsider = await newOwner('intruder');
    const id = created.workflow.id;
    const requests: [string, string, unknown][] = [
      ['GET', `/workflows?workspaceId=${owner.workspaceId}`, undefined],
      ['GET', `/workflows/${id}`, undefined],
      ['PATCH', `/workflows/${id}`, { name: 'stolen' }],
      ['POST', `/workflows/${id}/run`, {}],
      ['POST', `/workflows/${id}/live`, undefined],
      ['POST', `/workflows/${id}/draft`, undefined],
      ['POST', `/workflows/${id}/duplicate`, undefined],
      ['GET', `/workflows/${id}/test-events`, undefined],
      ['GET', `/workflows/${id}/runs`, undefined],
      ['GET', `/runs/${runId}`, undefined],
      ['DELETE', `/workflows/${id}`, undefined],
    ];
    for (const [method, path, body] of requests) {
      const response = await http(`${stack.url}${path}`, { method, cookie: outsider.cookie, body });
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
      const anonymous = await http(`${stack.url}${path}`, { method, body });
      expect([path, anonymous.status]).toEqual([path, 401]);
    }
    const unknown = await http(`${stack.url}/workflows/${randomUUID()}`, { cookie: owner.cookie });
    expect(unknown.status).toBe(404);
    const still = await http(`${stack.url}/workflows/${id}`, { cookie: owner.cookie });
    expect(still.body).toMatchObject({ workflow: { name: 'Orders' } });
  });

  test("GET /workflows lists the workspace's workflows newest first; 400 without workspaceId", async () => {
    const owner = await newOwner('list');
    const first = await createWorkflow(owner, { name: 'First' });
    const second = await createWorkflow(owner, { name: 'Second' });
    const listed = await http(`${stack.url}/workflows?workspaceId=${owner.workspaceId}`, {
      cookie: owner.cookie,
    });
    expect(listed.status).toBe(200);
    expect(
      (listed.body as { workflows: { id: string }[] }).workflows.map((workflow) => workflow.id),
    ).toEqual([second.workflow.id, first.workflow.id]);
    const missing = await http(`${stack.url}/workflows`, { cookie: owner.cookie });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  test('PATCH changes steps (and the published cost); trigger null removes the address, a new trigger gets a new one', async () => {
    const owner = await newOwner('patch');
    const created = await createWorkflow(owner);
    const oldWebhookId = created.webhook?.id ?? '';
    const patched = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: {
        name: 'Renamed',
        steps: [httpStep('https://example.com/a'), httpStep('https://example.com/b')].map(
          (step, index) => ({ ...step, name: `call ${index}` }),
        ),
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      workflow: { name: 'Renamed', credit_cost: 2 },
      webhook: { id: oldWebhookId },
    });
    expect(await published(oldWebhookId)).toMatchObject({ creditCost: 2 });

    const removed = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { trigger: null },
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ workflow: { trigger: null }, webhook: null });
    expect(await published(oldWebhookId)).toBeNull();

    const readded = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { trigger: { type: 'custom_webhook' } },
    });
    const newWebhookId = (readded.body as CreatedWorkflow).webhook?.id ?? '';
    expect(newWebhookId).not.toBe(oldWebhookId);
    expect(await published(newWebhookId)).toMatchObject({
      workflowId: created.workflow.id,
      status: 'draft',
    });
    expect(await published(oldWebhookId)).toBeNull();

    const invalid = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: {
        settings: { runningHours: { timezone: 'UTC', days: [8], start: '09:00', end: '17:00' } },
      },
    });
    expect(invalid.status).toBe(400);
  });

  test('Run, then Set live (409 before any Run), back to draft; the bucket follows each status', async () => {
    const owner = await newOwner('live', 5);
    const created = await createWorkflow(owner);
    const webhookId = created.webhook?.id ?? '';
    const tooEarly = await http(`${stack.url}/workflows/${created.workflow.id}/live`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(tooEarly.status).toBe(409);
    expect(tooEarly.body).toEqual({
      error: 'Run the workflow at least once before setting it live',
      code: 'CONFLICT',
    });

    const run = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(run.status).toBe(202);
    const finished = await finishedRun(owner.cookie, (run.body as { runId: string }).runId);
    expect(finished).toMatchObject({
      status: 'succeeded',
      input: {},
      trigger: { type: 'manual', test_event_id: null },
    });

    const live = await http(`${stack.url}/workflows/${created.workflow.id}/live`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ workflow: { status: 'live' } });
    expect(await published(webhookId)).toMatchObject({ status: 'live' });

    const draft = await http(`${stack.url}/workflows/${created.workflow.id}/draft`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(draft.status).toBe(200);
    expect(draft.body).toMatchObject({ workflow: { status: 'draft' } });
    expect(await published(webhookId)).toMatchObject({ status: 'draft' });
  });

  test('duplicate: 201 with a new address; the original keeps its own', async () => {
    const owner = await newOwner('dup');
    const created = await createWorkflow(owner, { steps: [httpStep('https://example.com/x')] });
    const copy = await http(`${stack.url}/workflows/${created.workflow.id}/duplicate`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(copy.status).toBe(201);
    const duplicated = copy.body as CreatedWorkflow;
    expect(duplicated.workflow.id).not.toBe(created.workflow.id);
    expect(duplicated.workflow).toMatchObject({
      name: 'Orders (copy)',
      status: 'draft',
      steps: created.workflow.steps,
    });
    expect(duplicated.webhook?.id).not.toBe(created.webhook?.id);
    expect(duplicated.webhook?.url).toBe(
      `https://automation.example.com/webhooks/${duplicated.webhook?.id}`,
    );
    expect(await published(duplicated.webhook?.id ?? '')).toMatchObject({
      workflowId: duplicated.workflow.id,
    });
    expect(await published(created.webhook?.id ?? '')).toMatchObject({
      workflowId: created.workflow.id,
    });
    const original = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      cookie: owner.cookie,
    });
    expect(original.body).toMatchObject({ webhook: { id: created.webhook?.id } });
  });

  test('test events: every received request is kept (also in draft), newest first; Run uses the chosen or the latest one', async () => {
    const owner = await newOwner('events', 10);
    const created = await createWorkflow(owner, {
      steps: [
        {
          type: 'delay',
          name: 'echo',
          settings: { seconds: 0 },
        },
      ],
    });
    // A second apart: two requests within one millisecond have no order between them.
    const older = await receiveWebhook(
      created,
      owner.workspaceId,
      { user: { name: 'Old' } },
      new Date(Date.now() - 1_000),
    );
    const newer = await receiveWebhook(created, owner.workspaceId, { user: { name: 'New' } });
    const events = await eventually(async () => {
      const response = await http(`${stack.url}/workflows/${created.workflow.id}/test-events`, {
        cookie: owner.cookie,
      });
      expect(response.status).toBe(200);
      const list = (
        response.body as {
          events: { id: string; body: unknown; headers: unknown; received_at: string }[];
        }
      ).events;
      expect(list.map((event) => event.id)).toEqual([newer, older]);
      return list;
    });
    expect(events[0]).toEqual({
      id: newer,
      received_at: expect.any(String),
      body: { user: { name: 'New' } },
      headers: { 'content-type': 'application/json', 'x-e2e': '1' },
    });

    const latest = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {},
    });
    expect(latest.status).toBe(202);
    expect(await finishedRun(owner.cookie, (latest.body as { runId: string }).runId)).toMatchObject(
      {
        input: { user: { name: 'New' } },
        trigger: { type: 'manual', test_event_id: newer },
      },
    );
    const chosen = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { testEventId: older },
    });
    expect(await finishedRun(owner.cookie, (chosen.body as { runId: string }).runId)).toMatchObject(
      {
        input: { user: { name: 'Old' } },
        trigger: { test_event_id: older },
      },
    );
    const unknown = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { testEventId: randomUUID() },
    });
    expect(unknown.status).toBe(404);

    const runs = await http(`${stack.url}/workflows/${created.workflow.id}/runs`, {
      cookie: owner.cookie,
    });
    expect(runs.status).toBe(200);
    expect((runs.body as { runs: { id: string }[] }).runs.map((run) => run.id)).toEqual([
      (chosen.body as { runId: string }).runId,
      (latest.body as { runId: string }).runId,
    ]);
    // The list is a summary: the bodies and step outputs are read per run.
    const [first] = (runs.body as { runs: Record<string, unknown>[] }).runs;
    expect(first).toMatchObject({
      status: 'succeeded',
      steps: [{ name: 'echo', status: 'succeeded' }],
    });
    expect(first).not.toHaveProperty('input');
    expect((first?.['steps'] as Record<string, unknown>[])[0]).not.toHaveProperty('output');
  });

  test('a body too large to travel inline is stored once, reaches the test event and the run whole, and is deleted after', async () => {
    const owner = await newOwner('large', 10);
    const created = await createWorkflow(owner);
    for (const action of ['run', 'live']) {
      const response = await http(`${stack.url}/workflows/${created.workflow.id}/${action}`, {
        method: 'POST',
        cookie: owner.cookie,
        body: {},
      });
      expect(response.status).toBeLessThan(300);
    }
    const body = { data: 'z'.repeat(700 * 1024) };
    const puts = jest.spyOn(stack.platform.objects, 'put');
    const accepted = await fetch(`${stack.url}/webhooks/${created.webhook?.id ?? ''}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await accepted.json()) as { triggered: number; eventId: string };
    expect(answer).toMatchObject({ triggered: 1 });
    // Parked by the gateway and kept as the event's body: one object written, not a copy.
    const written = puts.mock.calls.map(([bucket, name]) => ({ bucket, name }));
    puts.mockRestore();
    expect(written).toEqual([{ bucket: REQUEST_BODIES_BUCKET, name: expect.any(String) }]);

    await eventually(async () => {
      const response = await http(`${stack.url}/workflows/${created.workflow.id}/test-events`, {
        cookie: owner.cookie,
      });
      const { events } = response.body as { events: { id: string; body: unknown }[] };
      expect(events.find((event) => event.id === answer.eventId)?.body).toEqual(body);
    });
    const runs = await http(`${stack.url}/workflows/${created.workflow.id}/runs`, {
      cookie: owner.cookie,
    });
    const webhookRun = (
      runs.body as { runs: { id: string; trigger: { type: string } }[] }
    ).runs.find((run) => run.trigger.type === 'custom_webhook');
    expect((await finishedRun(owner.cookie, webhookRun?.id ?? '')).input).toEqual(body);
    await eventually(async () =>
      expect(
        await stack.platform.objects.info(REQUEST_BODIES_BUCKET, written[0]?.name ?? ''),
      ).toBeNull(),
    );
  });

  test('Run answers 402 with the spec body: depleted at zero, insufficient below the workflow cost', async () => {
    const owner = await newOwner('broke');
    const created = await createWorkflow(owner, {
      steps: [
        httpStep('https://example.com/1'),
        { ...httpStep('https://example.com/2'), name: 'again' },
      ],
    });
    const run = () =>
      http(`${stack.url}/workflows/${created.workflow.id}/run`, {
        method: 'POST',
        cookie: owner.cookie,
      });
    const depleted = await run();
    expect(depleted.status).toBe(402);
    expect(depleted.body).toEqual({
      error: CREDIT_MESSAGES.depleted,
      code: 'INSUFFICIENT_CREDITS',
      message: 'Your credit balance is depleted. Upgrade your plan to continue running flows.',
    });
    await http(`${stack.url}/workspaces/${owner.workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: adminCookie,
      body: { amount: 1, reason: 'e2e' },
    });
    const insufficient = await run();
    expect(insufficient.status).toBe(402);
    expect(insufficient.body).toEqual({
      error: CREDIT_MESSAGES.insufficient,
      code: 'INSUFFICIENT_CREDITS',
      message: 'Insufficient credits to run this flow. Upgrade your plan to continue.',
    });
    const bucket = await stack.platform.kv.bucket(CREDIT_BALANCES_BUCKET);
    await eventually(async () => {
      const entry = await bucket.get(creditBalanceKey(owner.workspaceId));
      expect(entry ? decodeJson(entry.value) : null).toEqual({ balance: 1 });
    });
  });

  test('http_request to a private address is refused by the SSRF guard; templates are filled; the failure stops the run', async () => {
    const owner = await newOwner('ssrf', 5);
    const created = await createWorkflow(owner, {
      steps: [
        httpStep('http://127.0.0.1:9/{{Custom Webhook.user.name}}'),
        { ...delayStep, name: 'later' },
      ],
    });
    const run = await runOnTestEvent(owner, created, { user: { name: 'eve' } });
    expect(run.status).toBe('failed');
    expect(run.steps.map((step) => step.status)).toEqual(['failed', 'skipped']);
    expect(run.steps[0]?.input).toMatchObject({
      url: 'http://127.0.0.1:9/eve',
      body: { who: 'eve' },
    });
    expect(run.steps[0]?.error).toMatch(/^Request refused: .*not a public address/);
    // Refused before a byte left the platform: the charge is given back (decision 127).
    expect(run.credits_charged).toBe(0);
    const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
      cookie: owner.cookie,
    });
    expect(credits.body).toEqual({ balance: 5 });
  });

  test('a step that failed after its request went out keeps its charge', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(500).end('down');
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    try {
      const owner = await newOwner('http-500', 5);
      const port = (server.address() as AddressInfo).port;
      const created = await createWorkflow(owner, {
        steps: [httpStep(`http://localhost:${port}/orders`)],
      });
      const run = await runOnTestEvent(owner, created, { user: { name: 'eve' } });
      expect(run.steps[0]?.error).toBe('The server answered HTTP 500');
      expect(run.credits_charged).toBe(1);
      const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      expect(credits.body).toEqual({ balance: 4 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a run calls a local HTTP server: each step gets the event and earlier outputs, and is charged', async () => {
    const received: { url: string; body: string; header: string | undefined }[] = [];
    const keys: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          url: req.url ?? '',
          body: Buffer.concat(chunks).toString('utf8'),
          header: req.headers['x-order'] as string | undefined,
        });
        keys.push(req.headers['x-api-key'] as string | undefined);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ orderId: 'o-42', lines: [{ sku: 'S1' }] }));
      });
    });
    // Listening on every interface: localhost may resolve to ::1 or 127.0.0.1.
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const base = `http://localhost:${(server.address() as AddressInfo).port}`;
    try {
      const owner = await newOwner('http', 5);
      const created = await createWorkflow(owner, {
        steps: [
          {
            type: 'http_request',
            name: 'lookup',
            settings: {
              method: 'GET',
              url: `${base}/orders?customer={{Custom Webhook.customer.id}}`,
            },
          },
          {
            type: 'http_request',
            name: 'notify',
            settings: {
              method: 'POST',
              url: `${base}/notify`,
              headers: { 'x-order': '{{steps.lookup.body.orderId}}', 'x-api-key': 'step-key-7' },
              body: {
                sku: '{{steps.lookup.body.lines.0.sku}}',
                note: 'for {{Custom Webhook.customer.name}}{{Custom Webhook.absent}}',
              },
            },
          },
        ],
      });
      const run = await runOnTestEvent(owner, created, { customer: { id: 'c-9', name: 'Ada' } });
      expect(run.status).toBe('succeeded');
      expect(run.credits_charged).toBe(2);
      expect(run.steps.map((step) => [step.name, step.status, step.error])).toEqual([
        ['lookup', 'succeeded', null],
        ['notify', 'succeeded', null],
      ]);
      expect(received).toEqual([
        { url: '/orders?customer=c-9', body: '', header: undefined },
        { url: '/notify', body: JSON.stringify({ sku: 'S1', note: 'for Ada' }), header: 'o-42' },
      ]);
      // The key reached the server, but the run's history shows it redacted (issue 41 item 5).
      expect(keys).toEqual([undefined, 'step-key-7']);
      expect((run.steps[1]?.input as { headers: unknown }).headers).toEqual({
        'x-order': 'o-42',
        'x-api-key': '[redacted]',
      });
      expect(JSON.stringify(run)).not.toContain('step-key-7');
      const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      expect(credits.body).toEqual({ balance: 3 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('an http_request step redirected to another origin arrives there without its credentials', async () => {
    const CREDENTIALS = {
      authorization: 'Bearer step-secret',
      cookie: 'session=step-secret',
      'x-api-key': 'step-secret',
    };
    const seen: { server: string; path: string; headers: Record<string, unknown>; body: string }[] =
      [];
    const recording = (server: string, answer: (res: ServerResponse) => void) =>
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          seen.push({ server, path: req.url ?? '', headers: req.headers, body });
          answer(res);
        });
      });
    const elsewhere = recording('elsewhere', (res) => res.writeHead(200).end('{"ok":true}'));
    await new Promise<void>((resolve) => elsewhere.listen(0, resolve));
    const elsewhereUrl = `http://localhost:${(elsewhere.address() as AddressInfo).port}/landed`;
    const mover = recording('mover', (res) => res.writeHead(307, { location: elsewhereUrl }).end());
    await new Promise<void>((resolve) => mover.listen(0, resolve));
    try {
      const owner = await newOwner('redirect', 5);
      const created = await createWorkflow(owner, {
        steps: [
          {
            type: 'http_request',
            name: 'moved',
            settings: {
              method: 'POST',
              url: `http://localhost:${(mover.address() as AddressInfo).port}/start`,
              headers: CREDENTIALS,
              body: { order: 'o-1' },
            },
          },
        ],
      });
      const run = await runOnTestEvent(owner, created, { customer: { id: 'c-1' } });
      expect(run.status).toBe('succeeded');
      expect(seen.map(({ server, path, body }) => [server, path, body])).toEqual([
        ['mover', '/start', '{"order":"o-1"}'],
        ['elsewhere', '/landed', '{"order":"o-1"}'],
      ]);
      expect(seen[0]?.headers).toMatchObject(CREDENTIALS);
      for (const name of Object.keys(CREDENTIALS)) {
        expect(seen[1]?.headers[name]).toBeUndefined();
      }
    } finally {
      await Promise.all(
        [mover, elsewhere].map((server) => new Promise((resolve) => server.close(resolve))),
      );
    }
  });

  test('a run pauses at an approval after a delay; table and tool steps fail with clear errors, are refunded, and the run goes on', async () => {
    const owner = await newOwner('steps', 20);
    const me = await http(`${stack.url}/me`, { cookie: owner.cookie });
    const userId = (me.body as { user: { id: string } }).user.id;
    const created = await createWorkflow(owner, {
      steps: [
        { type: 'delay', name: 'wait', settings: { seconds: 1 } },
        {
          type: 'table_row',
          name: 'row',
          settings: { tableId: 't', values: { v: '{{Custom Webhook.v}}' } },
        },
        { type: 'mcp_tool', name: 'tool', settings: { serverId: randomUUID(), toolName: 'echo' } },
        { type: 'approval', name: 'review', settings: { reviewerIds: [userId], message: 'ok?' } },
      ],
      settings: { stopOnNodeFailure: false },
    });
    expect(created.workflow.credit_cost).toBe(3);
    const started = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    const runId = (started.body as { runId: string }).runId;
    const paused = await eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie });
      const { run } = response.body as { run: RunBody };
      expect(run.status).toBe('waiting_approval');
      return run;
    });
    expect(paused.steps.map((step) => [step.name, step.status])).toEqual([
      ['wait', 'succeeded'],
      ['row', 'failed'],
      ['tool', 'failed'],
      ['review', 'waiting'],
    ]);
    expect(paused.steps[1]?.error).toBe('The table service failed: Table not found');
    expect(paused.steps[2]?.error).toMatch(/^The MCP tool service failed: /);
    // Both were refused before anything left the platform: charged, then refunded (decision 127).
    expect(paused.credits_charged).toBe(0);
    expect(paused.steps.map((step) => step.credits_charged)).toEqual([0, 0, 0, 0]);
    const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
      cookie: owner.cookie,
    });
    expect(credits.body).toEqual({ balance: 20 });
  });

  test('a workflow that asks the assistant is refused when run or set live while no model is configured, and charged nothing', async () => {
    const owner = await newOwner('no-model', 20);
    const created = await createWorkflow(owner, { steps: [delayStep] });
    const run = (id: string) =>
      http(`${stack.url}/workflows/${id}/run`, { method: 'POST', cookie: owner.cookie });
    expect((await run(created.workflow.id)).status).toBe(202);
    const changed = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { steps: [{ type: 'assistant_prompt', name: 'ask', settings: { prompt: 'hi' } }] },
    });
    expect(changed.status).toBe(200);
    const refusal = {
      code: 'MODEL_NOT_CONFIGURED',
      error:
        'The step "ask" asks the assistant, and no language model is configured (set LLM_BASE_URL and LLM_MODEL on the chat service)',
    };
    const refusedRun = await run(created.workflow.id);
    expect({ status: refusedRun.status, body: refusedRun.body }).toEqual({
      status: 503,
      body: refusal,
    });
    const refusedLive = await http(`${stack.url}/workflows/${created.workflow.id}/live`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect({ status: refusedLive.status, body: refusedLive.body }).toEqual({
      status: 503,
      body: refusal,
    });
    const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
      cookie: owner.cookie,
    });
    expect(credits.body).toEqual({ balance: 20 });
  });

  test('GET /workflows/{id}/runs pages newest first with a cursor and keeps one status on request', async () => {
    const owner = await newOwner('paging', 20);
    const created = await createWorkflow(owner);
    const workflowId = created.workflow.id;
    const runOnce = async () => {
      const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
        method: 'POST',
        cookie: owner.cookie,
      });
      expect(started.status).toBe(202);
      return finishedRun(owner.cookie, (started.body as { runId: string }).runId);
    };
    const succeeded = [await runOnce(), await runOnce(), await runOnce()];
    const updated = await http(`${stack.url}/workflows/${workflowId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { steps: [httpStep('http://127.0.0.1:9/refused')] },
    });
    expect(updated.status).toBe(200);
    const failed = [await runOnce(), await runOnce()];
    expect(failed.map((run) => run.status)).toEqual(['failed', 'failed']);

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `limit=2&cursor=${cursor}` : 'limit=2';
      const page = await http(`${stack.url}/workflows/${workflowId}/runs?${query}`, {
        cookie: owner.cookie,
      });
      expect(page.status).toBe(200);
      const body = page.body as { runs: { id: string }[]; nextCursor: string | null };
      pages.push(body.runs.map((run) => run.id));
      cursor = body.nextCursor;
    } while (cursor);
    const newestFirst = [...succeeded, ...failed].map((run) => run.id).reverse();
    expect(pages).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);

    const onlyFailed = await http(`${stack.url}/workflows/${workflowId}/runs?status=failed`, {
      cookie: owner.cookie,
    });
    expect((onlyFailed.body as { runs: { id: string }[] }).runs.map((run) => run.id)).toEqual(
      failed.map((run) => run.id).reverse(),
    );
    expect((onlyFailed.body as { nextCursor: string | null }).nextCursor).toBeNull();
    for (const query of ['status=finished', 'limit=0', 'limit=101', 'cursor=bm90LWEtY3Vyc29y']) {
      const refused = await http(`${stack.url}/workflows/${workflowId}/runs?${query}`, {
        cookie: owner.cookie,
      });
      expect(refused.status).toBe(400);
      expect((refused.body as { code: string }).code).toMatch(
        /^(VALIDATION_ERROR|INVALID_CURSOR)$/,
      );
    }
  });

  test('two runs racing for the last credit: exactly one succeeds and the balance ends at zero', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, resolve));
    try {
      const owner = await newOwner('race', 1);
      const port = (server.address() as AddressInfo).port;
      const created = await createWorkflow(owner, {
        steps: [httpStep(`http://localhost:${port}/order`)],
        settings: { stopOnNodeFailure: true },
      });
      const replies = await Promise.all(
        [0, 1].map(() =>
          http(`${stack.url}/workflows/${created.workflow.id}/run`, {
            method: 'POST',
            cookie: owner.cookie,
          }),
        ),
      );
      const runIds = replies
        .filter((reply) => reply.status === 202)
        .map((reply) => (reply.body as { runId: string }).runId);
      expect(replies.filter((reply) => reply.status !== 202).map((reply) => reply.status)).toEqual(
        Array(2 - runIds.length).fill(402),
      );
      const runs = await Promise.all(runIds.map((runId) => finishedRun(owner.cookie, runId)));
      const charged = runs.filter((run) => run.credits_charged === 1);
      expect(charged.map((run) => run.status)).toEqual(['succeeded']);
      for (const run of runs.filter((candidate) => candidate.credits_charged === 0)) {
        expect([CREDIT_MESSAGES.depleted, CREDIT_MESSAGES.insufficient]).toContain(run.error);
      }
      const credits = await http(`${stack.url}/workspaces/${owner.workspaceId}/credits`, {
        cookie: owner.cookie,
      });
      expect(credits.body).toEqual({ balance: 0 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('DELETE /workflows/{id}: 204, then 404, and its address leaves the bucket; its runs stay readable', async () => {
    const owner = await newOwner('delete', 5);
    const created = await createWorkflow(owner);
    const started = await http(`${stack.url}/workflows/${created.workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    const runId = (started.body as { runId: string }).runId;
    await finishedRun(owner.cookie, runId);
    const deleted: JsonResponse = await http(`${stack.url}/workflows/${created.workflow.id}`, {
      method: 'DELETE',
      cookie: owner.cookie,
    });
    expect(deleted.status).toBe(204);
    expect(
      (await http(`${stack.url}/workflows/${created.workflow.id}`, { cookie: owner.cookie }))
        .status,
    ).toBe(404);
    expect(await published(created.webhook?.id ?? '')).toBeNull();
    expect((await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie })).status).toBe(200);
  });
});
