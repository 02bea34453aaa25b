import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROUTES, type Run, type RouteSpec } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, type Person, type TestStack } from './stack';

interface Received {
  path: string;
  body: unknown;
}

type RunPage = { runs: { id: string; trigger: { type: string } }[] };

/**
 * Control steps (issue 43 item 2, decision 165) on both runtimes, against a real HTTP server:
 * if and switch take one branch and skip the others, for_each runs its steps once per item as
 * runs of their own, call_workflow runs another workflow and takes its result, set names values,
 * stop ends the run. Only the steps that ran are sent and charged.
 */
describe.each(RUNTIMES)('control steps on the %s runtime', (runtime) => {
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
        const failing = req.url?.startsWith('/fail');
        const padding = req.url?.startsWith('/big') ? 'x'.repeat(12_000) : undefined;
        res
          .writeHead(failing ? 422 : 200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ path: req.url, padding }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      // Each run here starts far fewer; the nested loop test reaches the bound.
      services: {
        workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1', RUN_MAX_DESCENDANTS: 60 },
      },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'control-owner', 500));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  const post = (path: string, body?: unknown) =>
    http(`${stack.url}${path}`, { method: 'POST', cookie: owner.cookie, body });
  const read = async <T>(path: string): Promise<T> => {
    const answer = await http(`${stack.url}${path}`, { cookie: owner.cookie });
    expect(answer.status).toBe(200);
    return answer.body as T;
  };
  const save = (steps: unknown[], name = 'Decides') =>
    post('/workflows', { workspaceId, name, trigger: { type: 'custom_webhook' }, steps });
  const call = (path: string) => ({ method: 'POST', url: `${origin}${path}` });
  const sentTo = (prefix: string, since: number) =>
    received.slice(since).filter((request) => request.path.startsWith(prefix));

  async function endOf(runId: string): Promise<Run> {
    return eventually(async () => {
      const { run } = await read<{ run: Run }>(`/runs/${runId}`);
      expect(['succeeded', 'failed', 'cancelled']).toContain(run.status);
      return run;
    }, 30_000);
  }

  /** Saves the workflow, sends its address `event` and runs it on that event to its end. */
  async function ranOn(
    event: unknown,
    steps: unknown[],
  ): Promise<{ run: Run; workflowId: string }> {
    const saved = await save(steps);
    expect(saved.status).toBe(201);
    const { workflow, webhook } = saved.body as {
      workflow: { id: string };
      webhook: { id: string };
    };
    expect(
      (await http(`${stack.url}/webhooks/${webhook.id}`, { method: 'POST', body: event })).status,
    ).toBe(200);
    // The event is stored as it comes off the stream: the run waits until it is there.
    const testEventId = await eventually(async () => {
      const { events } = await read<{ events: { id: string }[] }>(
        `/workflows/${workflow.id}/test-events`,
      );
      expect(events).toHaveLength(1);
      return events[0]?.id;
    }, 30_000);
    const started = await post(`/workflows/${workflow.id}/run`, { testEventId });
    expect(started.status).toBe(202);
    return { run: await endOf((started.body as { runId: string }).runId), workflowId: workflow.id };
  }

  const notifyIfLarge = () => [
    {
      type: 'if',
      name: 'large order',
      settings: { condition: 'webhook.order.total > 100' },
      then: [{ type: 'http_request', name: 'notify sales', settings: call('/sales') }],
      else: [{ type: 'http_request', name: 'log small', settings: call('/small') }],
    },
    { type: 'http_request', name: 'after', settings: call('/after') },
  ];

  test('an if runs the branch its condition chose and skips the other, uncharged', async () => {
    const before = received.length;
    const { run } = await ranOn({ order: { total: 150 } }, notifyIfLarge());
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(
      run.steps.map((step) => [
        step.name,
        step.status,
        step.parent_index,
        step.branch,
        step.credits_charged,
      ]),
    ).toEqual([
      ['large order', 'succeeded', null, null, 0],
      ['notify sales', 'succeeded', 0, 'then', 1],
      ['log small', 'skipped', 0, 'else', 0],
      ['after', 'succeeded', null, null, 1],
    ]);
    expect(run.steps[0]?.output).toEqual({ branch: 'then', condition: true });
    expect(run.credits_charged).toBe(2);
    expect(sentTo('/', before).map((request) => request.path)).toEqual(['/sales', '/after']);

    const small = await ranOn({ order: { total: 50 } }, notifyIfLarge());
    expect(small.run.steps.map((step) => step.status)).toEqual([
      'succeeded',
      'skipped',
      'succeeded',
      'succeeded',
    ]);
  });

  test('a switch runs the first case that holds, else its default', async () => {
    const steps = [
      {
        type: 'switch',
        name: 'route',
        cases: [
          {
            when: 'webhook.plan == "pro"',
            steps: [{ type: 'http_request', name: 'pro', settings: call('/pro') }],
          },
          {
            when: 'webhook.seats > 10',
            steps: [{ type: 'http_request', name: 'big', settings: call('/big') }],
          },
          {
            when: 'true',
            steps: [{ type: 'http_request', name: 'shadowed', settings: call('/shadowed') }],
          },
        ],
        default: [{ type: 'http_request', name: 'fallback', settings: call('/fallback') }],
      },
    ];
    const before = received.length;
    const { run } = await ranOn({ plan: 'team', seats: 40 }, steps);
    expect(run.steps[0]?.output).toEqual({ branch: 'case:1', case: 1 });
    expect(run.steps.map((step) => [step.name, step.status])).toEqual([
      ['route', 'succeeded'],
      ['pro', 'skipped'],
      ['big', 'succeeded'],
      ['shadowed', 'skipped'],
      ['fallback', 'skipped'],
    ]);
    expect(sentTo('/', before).map((request) => request.path)).toEqual(['/big']);
  });

  test('for_each runs its steps once per item, each iteration a run listed on its loop', async () => {
    const before = received.length;
    const { run, workflowId } = await ranOn(
      { region: 'eu', lines: [{ sku: 'A1' }, { sku: 'B2' }, { sku: 'C3' }] },
      [
        {
          type: 'set',
          name: 'defaults',
          settings: { values: { warehouse: 'W{{Custom Webhook.region}}' } },
        },
        {
          type: 'for_each',
          name: 'each line',
          settings: { items: 'webhook.lines', concurrency: 2 },
          steps: [
            {
              type: 'http_request',
              name: 'reserve',
              settings: {
                ...call('/reserve/{{item.sku}}'),
                body: {
                  index: '{{index}}',
                  warehouse: '{{vars.warehouse}}',
                  sku: '{{= item.sku }}',
                },
              },
            },
          ],
        },
        {
          type: 'http_request',
          name: 'done',
          settings: { ...call('/done'), body: { count: '{{steps.each line.count}}' } },
        },
      ],
    );
    expect(run.status).toBe('succeeded');
    const reserved = sentTo('/reserve/', before);
    expect(reserved.map((request) => request.path).sort()).toEqual([
      '/reserve/A1',
      '/reserve/B2',
      '/reserve/C3',
    ]);
    expect(reserved.find((request) => request.path === '/reserve/B2')?.body).toEqual({
      index: 1,
      warehouse: 'Weu',
      sku: 'B2',
    });
    expect(sentTo('/done', before)[0]?.body).toEqual({ count: 3 });
    const loop = run.steps[1];
    const output = loop?.output as {
      count: number;
      iterations: { index: number; run_id: string; steps: Record<string, unknown> }[];
    };
    expect(output.count).toBe(3);
    expect(output.iterations.map((iteration) => iteration.index)).toEqual([0, 1, 2]);
    expect(output.iterations[2]?.steps['reserve']).toMatchObject({
      status: 200,
      body: { path: '/reserve/C3' },
    });

    const iteration = await read<{ run: Run }>(`/runs/${output.iterations[0]?.run_id}`);
    expect(iteration.run.trigger).toMatchObject({
      type: 'for_each',
      parent_run_id: run.id,
      iteration: 0,
    });
    expect(iteration.run.input).toEqual({ item: { sku: 'A1' }, index: 0 });
    expect(iteration.run.credits_charged).toBe(1);
    // The workflow's runs list its runs, not its loop's iterations.
    const page = await read<RunPage>(`/workflows/${workflowId}/runs`);
    expect(page.runs.map((listed) => listed.id)).toEqual([run.id]);
  });

  test("a loop whose outputs would outgrow a run's page keeps them on its iterations", async () => {
    const items = Array.from({ length: 25 }, (_, index) => index).join(', ');
    const { run } = await ranOn({}, [
      {
        type: 'for_each',
        name: 'each',
        settings: { items: `[${items}]`, concurrency: 5 },
        steps: [{ type: 'http_request', name: 'fetch', settings: call('/big/{{index}}') }],
      },
    ]);
    expect(run.status).toBe('succeeded');
    const output = run.steps[0]?.output as {
      count: number;
      iterations: Record<string, unknown>[];
      outputs_left_out?: boolean;
    };
    expect(output.count).toBe(25);
    expect(output.outputs_left_out).toBe(true);
    expect(Object.keys(output.iterations[24] ?? {})).toEqual(['index', 'run_id']);
    const last = await read<{ run: Run }>(`/runs/${String(output.iterations[24]?.run_id)}`);
    expect(last.run.steps[0]?.output).toMatchObject({ body: { path: '/big/24' } });
  });

  test('loops inside loops cannot start more runs than the bound, all levels counted', async () => {
    const twenty = Array.from({ length: 20 }, (_, index) => index).join(', ');
    const { run } = await ranOn({}, [
      {
        type: 'for_each',
        name: 'outer',
        settings: { items: '[1, 2, 3, 4, 5]' },
        steps: [
          {
            type: 'for_each',
            name: 'inner',
            settings: { items: `[${twenty}]` },
            steps: [{ type: 'set', name: 'mark', settings: { values: { at: '{{index}}' } } }],
          },
        ],
      },
    ]);
    // 5 outer iterations and two inner loops of 20 fit in 60; the third inner loop does not.
    expect(run.status).toBe('failed');
    expect(run.steps[0]?.error).toBe(
      'Iteration 3 of 5 failed: Step "inner" failed: A run starts at most 60 runs through its loops and calls, all levels counted',
    );
  });

  test('a loop over too many items, or with an iteration that fails, fails its step', async () => {
    const tooMany = await ranOn({ lines: [1, 2, 3] }, [
      {
        type: 'for_each',
        name: 'bounded',
        settings: { items: 'webhook.lines', maxItems: 2 },
        steps: [{ type: 'http_request', name: 'never', settings: call('/never') }],
      },
    ]);
    expect(tooMany.run.status).toBe('failed');
    expect(tooMany.run.steps[0]?.error).toBe('The list has 3 items; this for_each takes at most 2');

    const failing = await ranOn({ lines: ['ok', 'bad', 'ok'] }, [
      {
        type: 'for_each',
        name: 'each',
        settings: { items: 'webhook.lines' },
        steps: [
          {
            type: 'http_request',
            name: 'send',
            settings: call('/{{= item == "bad" ? "fail" : "fine" }}/{{index}}'),
          },
        ],
      },
    ]);
    expect(failing.run.status).toBe('failed');
    expect(failing.run.steps[0]?.error).toMatch(/^Iteration 2 of 3 failed: Step "send" failed: /);
    // Iterations run in order by default: the one after the failure never starts.
    expect(received.some((request) => request.path === '/fine/2')).toBe(false);
  });

  test('call_workflow runs another workflow of the workspace and takes its result', async () => {
    const called = await save(
      [
        { type: 'set', name: 'price', settings: { values: { total: '{{= webhook.qty * 3.0 }}' } } },
        {
          type: 'http_request',
          name: 'invoice',
          settings: { ...call('/invoice'), body: { total: '{{vars.total}}' } },
        },
      ],
      'Invoices',
    );
    const calledId = (called.body as { workflow: { id: string } }).workflow.id;
    const before = received.length;
    const { run } = await ranOn({ qty: 4 }, [
      {
        type: 'call_workflow',
        name: 'bill',
        settings: { workflowId: calledId, input: { qty: '{{Custom Webhook.qty}}' } },
      },
      {
        type: 'http_request',
        name: 'report',
        settings: { ...call('/report'), body: { total: '{{steps.bill.steps.price.total}}' } },
      },
    ]);
    expect(run.error).toBeNull();
    expect(run.status).toBe('succeeded');
    expect(sentTo('/invoice', before)[0]?.body).toEqual({ total: 12 });
    expect(sentTo('/report', before)[0]?.body).toEqual({ total: 12 });
    const output = run.steps[0]?.output as { run_id: string; status: string };
    expect(output.status).toBe('succeeded');
    const calledRun = await read<{ run: Run }>(`/runs/${output.run_id}`);
    expect(calledRun.run).toMatchObject({ workflow_id: calledId, input: { qty: 4 } });
    expect(calledRun.run.trigger).toMatchObject({ type: 'call_workflow', parent_run_id: run.id });
    // A called run is the called workflow's: it is in that workflow's list.
    const page = await read<RunPage>(`/workflows/${calledId}/runs`);
    expect(page.runs.map((listed) => listed.id)).toContain(output.run_id);

    const fireAndForget = await ranOn({ qty: 1 }, [
      {
        type: 'call_workflow',
        name: 'start',
        settings: { workflowId: calledId, input: { qty: 1 }, wait: false },
      },
    ]);
    expect(fireAndForget.run.status).toBe('succeeded');
    const started = fireAndForget.run.steps[0]?.output as { run_id: string };
    expect(Object.keys(started)).toEqual(['run_id']);
    const detached = await endOf(started.run_id);
    expect(detached.trigger.parent_run_id).toBeNull();
  });

  test('a call that would come back to its caller, or to itself, is refused at save', async () => {
    const first = await save([{ type: 'set', name: 'noop', settings: { values: {} } }], 'First');
    const firstId = (first.body as { workflow: { id: string } }).workflow.id;
    const second = await save(
      [{ type: 'call_workflow', name: 'to first', settings: { workflowId: firstId } }],
      'Second',
    );
    expect(second.status).toBe(201);
    const secondId = (second.body as { workflow: { id: string } }).workflow.id;
    const cycle = await http(`${stack.url}/workflows/${firstId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: {
        steps: [
          {
            type: 'if',
            name: 'maybe',
            settings: { condition: 'true' },
            then: [
              { type: 'call_workflow', name: 'to second', settings: { workflowId: secondId } },
            ],
          },
        ],
      },
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body).toEqual({
      error: 'A call_workflow step names a workflow it cannot call',
      code: 'VALIDATION_ERROR',
      details: [
        {
          path: 'body.steps.0.then.0.settings.workflowId',
          message:
            'This workflow calls, directly or not, the workflow calling it: calls cannot form a cycle',
        },
      ],
    });
    const itself = await http(`${stack.url}/workflows/${firstId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: {
        steps: [{ type: 'call_workflow', name: 'again', settings: { workflowId: firstId } }],
      },
    });
    expect((itself.body as { details: { message: string }[] }).details[0]?.message).toBe(
      'A workflow cannot call itself',
    );
  });

  test('stop ends the run as it says; the steps after it never run', async () => {
    const before = received.length;
    const failed = await ranOn({ stock: 0 }, [
      {
        type: 'if',
        name: 'out of stock',
        settings: { condition: 'webhook.stock == 0' },
        then: [
          {
            type: 'stop',
            name: 'give up',
            settings: { status: 'failed', message: 'No stock for {{Custom Webhook.sku}}' },
          },
        ],
      },
      { type: 'http_request', name: 'ship', settings: call('/ship') },
    ]);
    expect(failed.run.status).toBe('failed');
    expect(failed.run.error).toBe('No stock for ');
    expect(failed.run.steps.map((step) => step.status)).toEqual(['succeeded', 'failed', 'skipped']);
    const done = await ranOn({}, [
      { type: 'stop', name: 'nothing to do', settings: { status: 'succeeded' } },
      { type: 'http_request', name: 'ship', settings: call('/ship') },
    ]);
    expect(done.run.status).toBe('succeeded');
    expect(done.run.steps.map((step) => step.status)).toEqual(['succeeded', 'skipped']);
    expect(sentTo('/ship', before)).toEqual([]);
  });

  test('what a loop or branch cannot read is refused at save, the step named', async () => {
    const refused = await save([
      { type: 'http_request', name: 'outside', settings: call('/{{= item.sku }}') },
      {
        type: 'for_each',
        name: 'loop',
        settings: { items: 'webhook.lines' },
        steps: [{ type: 'set', name: 'inside', settings: { values: { a: 1 } } }],
      },
      { type: 'if', name: 'check', settings: { condition: 'steps.inside.a == 1' }, then: [] },
      { type: 'if', name: 'typo', settings: { condition: 'webhook.total >' } },
    ]);
    expect(refused.status).toBe(400);
    expect((refused.body as { details: unknown[] }).details).toEqual([
      {
        path: 'body.steps.0.settings.url',
        message: 'Step "outside": item is known only inside a for_each',
      },
      {
        path: 'body.steps.2.settings.condition',
        message: 'Step "check": no step before it is named "inside"',
      },
      {
        path: 'body.steps.3.settings.condition',
        message: expect.stringMatching(/^Step "typo": Not a valid expression/),
      },
    ]);
  });
});

/**
 * A gateway of the release before (its route table on the `.v1` subjects) beside this runner:
 * `.v1` answers what it can show, leaves control steps out of the step catalog and refuses a
 * workflow that holds one; a gateway whose newer subject has no server falls back to the
 * previous one (decision 143).
 */
describe('the .v1 subjects beside .v2', () => {
  let stack: TestStack;
  let owner: Person;
  let workspaceId: string;
  const previousOf = (route: RouteSpec): RouteSpec =>
    route.operationId === 'get_workflow'
      ? {
          ...route,
          subject: 'workflow.api.get_workflow.v9',
          previousSubject: route.previousSubject,
        }
      : route.previousSubject
        ? { ...route, subject: route.previousSubject, previousSubject: undefined }
        : route;

  beforeAll(async () => {
    stack = await startStack('embedded', {
      routes: (ROUTES as readonly RouteSpec[]).map(previousOf),
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'previous-owner', 10));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const create = async (steps: unknown[]) => {
    // Creating goes through create_workflow.v1, which takes the wider request as it is.
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name: 'Old client', trigger: { type: 'custom_webhook' }, steps },
    });
    return created;
  };

  test('v1 shows workflows without control steps, and refuses to show one with them', async () => {
    const catalog = await http(`${stack.url}/workflows/step-types`, { cookie: owner.cookie });
    const types = (catalog.body as { step_types: { type: string }[] }).step_types.map(
      (info) => info.type,
    );
    expect(types).toEqual([
      'http_request',
      'delay',
      'mcp_tool',
      'assistant_prompt',
      'approval',
      'table_row',
    ]);

    const plain = await create([{ type: 'delay', name: 'wait', settings: { seconds: 1 } }]);
    expect(plain.status).toBe(201);
    const plainId = (plain.body as { workflow: { id: string } }).workflow.id;
    // get_workflow's newer subject has no server here: the gateway asks the previous one.
    const shown = await http(`${stack.url}/workflows/${plainId}`, { cookie: owner.cookie });
    expect(shown.status).toBe(200);

    const deciding = await create([
      { type: 'if', name: 'check', settings: { condition: 'true' }, then: [] },
    ]);
    const refusal = {
      error:
        'This holds control steps or runs they started, which workflow.api.create_workflow.v1 cannot show: the caller needs workflow.api.create_workflow.v2',
      code: 'VALIDATION_ERROR',
    };
    expect([deciding.status, deciding.body]).toEqual([400, refusal]);
    // Refused before anything was done: the workspace holds the one workflow made above.
    const listed = await http(`${stack.url}/workflows?workspaceId=${workspaceId}`, {
      cookie: owner.cookie,
    });
    expect((listed.body as { workflows: { id: string }[] }).workflows.map((w) => w.id)).toEqual([
      plainId,
    ]);
    const edited = await http(`${stack.url}/workflows/${plainId}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { steps: [{ type: 'stop', name: 'end', settings: { status: 'succeeded' } }] },
    });
    expect(edited.status).toBe(400);
    const after = await http(`${stack.url}/workflows/${plainId}`, { cookie: owner.cookie });
    expect((after.body as { workflow: { steps: { type: string }[] } }).workflow.steps).toEqual([
      expect.objectContaining({ type: 'delay' }),
    ]);
  });
});
