import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, type Person, type TestStack } from './stack';

interface Received {
  path: string;
  body: unknown;
}

/**
 * Expressions in step settings (issue 43 item 1, decision 161) on both runtimes: `{{= … }}`
 * computes values from the trigger's body and earlier steps' outputs, and a real HTTP server sees
 * what they computed; what cannot work is refused at save with the step named; what fails while
 * it runs fails its step, uncharged, with a message a person can act on.
 */
describe.each(RUNTIMES)('expressions in step settings on the %s runtime', (runtime) => {
  let stack: TestStack;
  let server: Server;
  let origin: string;
  const received: Received[] = [];
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        received.push({ path: req.url ?? '', body: text ? (JSON.parse(text) as unknown) : null });
        const answer = req.url === '/order' ? { id: 'order-7', lines: 2 } : { ok: true };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'expressions-owner', 100));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const save = (steps: unknown[]) =>
    http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name: 'Computes', trigger: { type: 'custom_webhook' }, steps },
    });

  /** Saves the workflow, sends its address a test event, runs it on that event and waits for the end. */
  async function ranOn(event: unknown, steps: unknown[]): Promise<Run> {
    const saved = await save(steps);
    expect(saved.status).toBe(201);
    const { workflow, webhook } = saved.body as {
      workflow: { id: string };
      webhook: { id: string };
    };
    const hook = await http(`${stack.url}/webhooks/${webhook.id}`, { method: 'POST', body: event });
    expect(hook.status).toBe(200);
    const run = await http(`${stack.url}/workflows/${workflow.id}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(run.status).toBe(202);
    const { runId } = run.body as { runId: string };
    return eventually(async () => {
      const read = await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie });
      const { run: current } = read.body as { run: Run };
      expect(['succeeded', 'failed']).toContain(current.status);
      return current;
    }, 30_000);
  }

  test('settings compute values from the trigger and from earlier steps', async () => {
    const order = {
      order: { total: 150, items: [{ sku: 'A1' }, { sku: 'B2' }] },
      customer: { name: 'Ada Lovelace' },
    };
    const run = await ranOn(order, [
      {
        type: 'http_request',
        name: 'fetch order',
        settings: { method: 'POST', url: `${origin}/order` },
      },
      {
        type: 'http_request',
        name: 'notify',
        settings: {
          method: 'POST',
          url: `${origin}/notify/{{= steps["fetch order"].body.id }}`,
          body: {
            total: '{{= webhook.order.total * 1.2 }}',
            large: '{{= webhook.order.total > 100.0 }}',
            skus: '{{= webhook.order.items.map(item, item.sku) }}',
            greeting:
              'Dear {{= webhook.customer.name.split(" ")[0] }}, {{Custom Webhook.order.total}} due',
          },
        },
      },
    ]);
    expect(run.status).toBe('succeeded');
    const notified = received.find((request) => request.path === '/notify/order-7');
    expect(notified?.body).toEqual({
      total: 180,
      large: true,
      skus: ['A1', 'B2'],
      greeting: 'Dear Ada, 150 due',
    });
    // The run's history shows the values as they were sent.
    expect(run.steps[1]?.input).toMatchObject({ url: `${origin}/notify/order-7` });
  });

  test('an expression that cannot work is refused at save, the step and setting named', async () => {
    const refused = await save([
      {
        type: 'http_request',
        name: 'notify',
        settings: {
          method: 'POST',
          url: `${origin}/notify`,
          body: { total: '{{= webhook.order.total >}}', id: '{{= steps.later.id }}' },
        },
      },
      { type: 'delay', name: 'later', settings: { seconds: 0 } },
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'An expression in the steps cannot work',
      code: 'VALIDATION_ERROR',
      details: [
        {
          path: 'body.steps.0.settings.body.total',
          message: expect.stringMatching(/^Step "notify": Not a valid expression: at column \d+/),
        },
        {
          path: 'body.steps.0.settings.body.id',
          message: 'Step "notify": no step before it is named "later"',
        },
      ],
    });
    const unknownName = await save([
      {
        type: 'http_request',
        name: 'leak',
        settings: { method: 'POST', url: `${origin}/{{= credentials.token }}` },
      },
    ]);
    expect(unknownName.status).toBe(400);
    expect((unknownName.body as { details: { message: string }[] }).details[0]?.message).toMatch(
      /^Step "leak": Unknown name "credentials"/,
    );
  });

  test('an expression that fails while it runs fails its step, uncharged, saying why', async () => {
    const before = received.length;
    const run = await ranOn({ order: { total: 150 } }, [
      {
        type: 'http_request',
        name: 'needs a phone',
        settings: {
          method: 'POST',
          url: `${origin}/call`,
          body: { phone: '{{= webhook.customer.phone }}' },
        },
      },
    ]);
    expect(run.status).toBe('failed');
    expect(run.steps[0]).toMatchObject({
      status: 'failed',
      credits_charged: 0,
      error:
        'An expression failed: webhook.customer.phone: field not found: customer (has(x.field) tells whether it is there)',
    });
    expect(run.credits_charged).toBe(0);
    expect(received.slice(before).filter((request) => request.path === '/call')).toEqual([]);
  });
});
