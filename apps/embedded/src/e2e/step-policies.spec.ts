import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run, Workflow } from '@wap/contracts';
import { eventually } from '@wap/testing';
import { fundedWorkspace, http, RUNTIMES, startStack, type Person, type TestStack } from './stack';

interface Received {
  path: string;
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A server whose answers a test scripts per path: each request takes the next status of its
 * path's script (the last one repeats); `hang` never answers.
 */
function scriptedServer() {
  const received: Received[] = [];
  const scripts = new Map<string, (number | 'hang')[]>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      received.push({
        path,
        at: Date.now(),
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const script = scripts.get(path) ?? [200];
      const answer = script.length > 1 ? script.shift() : script[0];
      if (answer === 'hang') return;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer === 429) headers['retry-after'] = '1';
      res.writeHead(answer ?? 200, headers).end(JSON.stringify({ answered: answer }));
    });
  });
  return {
    server,
    received,
    script: (path: string, answers: (number | 'hang')[]) => scripts.set(path, [...answers]),
    at: (path: string) => received.filter((request) => request.path === path),
  };
}

/**
 * Step policies (issue 42 items 4 and 6, decision 155) on both runtimes, against a real HTTP
 * server: each retry policy (the failures it answers, its backoff, a 429's Retry-After), a
 * step's own timeout, the failure routes (stop, continue, a failure workflow), and the
 * Idempotency-Key every attempt of a step carries.
 */
describe.each(RUNTIMES)('step policies on the %s runtime', (runtime) => {
  let stack: TestStack;
  const target = scriptedServer();
  let origin: string;
  let owner: Person;
  let workspaceId: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => target.server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(target.server.address() as AddressInfo).port}`;
    stack = await startStack(runtime, {
      services: { workflowRunner: { HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1' } },
    });
    ({ owner, workspaceId } = await fundedWorkspace(stack, 'policies-owner', 1_000));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    target.server.closeAllConnections();
    await new Promise((resolve) => target.server.close(resolve));
  });

  async function saveWorkflow(name: string, steps: unknown[]) {
    return http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name, trigger: { type: 'custom_webhook' }, steps },
    });
  }

  async function workflowOf(name: string, steps: unknown[]): Promise<Workflow> {
    const created = await saveWorkflow(name, steps);
    expect(created.status).toBe(201);
    return (created.body as { workflow: Workflow }).workflow;
  }

  const call = (path: string, extra: Record<string, unknown> = {}) => ({
    type: 'http_request',
    name: 'call',
    settings: { method: 'POST', url: `${origin}${path}`, body: { hello: 'world' } },
    ...extra,
  });

  async function runToTheEnd(workflowId: string): Promise<Run> {
    const started = await http(`${stack.url}/workflows/${workflowId}/run`, {
      method: 'POST',
      cookie: owner.cookie,
    });
    expect(started.status).toBe(202);
    return runEnded((started.body as { runId: string }).runId);
  }

  async function runEnded(runId: string): Promise<Run> {
    return eventually(async () => {
      const response = await http(`${stack.url}/runs/${runId}`, { cookie: owner.cookie });
      expect(response.status).toBe(200);
      const { run } = response.body as { run: Run };
      expect(['succeeded', 'failed']).toContain(run.status);
      return run;
    }, 60_000);
  }

  test('a 5xx is retried as the policy says, every attempt kept, one charge, one Idempotency-Key', async () => {
    const path = `/flaky-${runtime}`;
    target.script(path, [503, 502, 200]);
    const workflow = await workflowOf('Flaky', [
      call(path, {
        retry: { attempts: 4, backoff: 'fixed', delayMs: 300, jitter: false, on: ['server_error'] },
      }),
    ]);
    expect(workflow.steps[0]).toMatchObject({
      retry: { attempts: 4, backoff: 'fixed', delayMs: 300, jitter: false, on: ['server_error'] },
    });
    const run = await runToTheEnd(workflow.id);
    expect(run.status).toBe('succeeded');
    const [step] = run.steps;
    expect(
      step?.attempts.map(({ number, failure, error }) => ({ number, failure, error })),
    ).toEqual([
      { number: 1, failure: 'server_error', error: 'The server answered HTTP 503' },
      { number: 2, failure: 'server_error', error: 'The server answered HTTP 502' },
      { number: 3, failure: null, error: null },
    ]);
    expect(step?.resumed).toBe(false);
    expect(step?.credits_charged).toBe(1);
    expect(run.credits_charged).toBe(1);
    const requests = target.at(path);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.headers['idempotency-key']))).toEqual(
      new Set([`${run.id}:0:0`]),
    );
    expect(step?.idempotency_key).toBe(`${run.id}:0:0`);
    // The backoff was waited: each attempt came at least delayMs after the one before.
    const gaps = requests.slice(1).map((request, index) => request.at - (requests[index]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(300);
  });

  test('attempts run out: the run fails with the last error; a failure not named is not retried', async () => {
    const broken = `/broken-${runtime}`;
    target.script(broken, [503]);
    const exhausted = await runToTheEnd(
      (
        await workflowOf('Broken', [
          call(broken, { retry: { attempts: 2, delayMs: 100, on: ['server_error'] } }),
        ])
      ).id,
    );
    expect(exhausted.status).toBe('failed');
    expect(exhausted.error).toBe('Step "call" failed: The server answered HTTP 503');
    expect(exhausted.steps[0]?.attempts).toHaveLength(2);
    expect(target.at(broken)).toHaveLength(2);

    const missing = `/missing-${runtime}`;
    target.script(missing, [404]);
    const refused = await runToTheEnd(
      (await workflowOf('Missing', [call(missing, { retry: { attempts: 5, delayMs: 100 } })])).id,
    );
    expect(refused.status).toBe('failed');
    expect(refused.steps[0]?.attempts).toEqual([
      expect.objectContaining({ number: 1, failure: null }),
    ]);
    expect(target.at(missing)).toHaveLength(1);
  });

  test("a 429's Retry-After is waited even when the backoff is shorter", async () => {
    const path = `/busy-${runtime}`;
    target.script(path, [429, 200]);
    const run = await runToTheEnd(
      (
        await workflowOf('Busy', [
          call(path, { retry: { attempts: 2, backoff: 'fixed', delayMs: 100, jitter: false } }),
        ])
      ).id,
    );
    expect(run.status).toBe('succeeded');
    expect(run.steps[0]?.attempts[0]).toMatchObject({ failure: 'rate_limited' });
    const [first, second] = target.at(path);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1_000);
  });

  test("a step's timeoutMs ends each attempt; a timeout is retried when the policy names it", async () => {
    const path = `/hangs-${runtime}`;
    target.script(path, ['hang']);
    const run = await runToTheEnd(
      (
        await workflowOf('Hangs', [
          call(path, { timeoutMs: 300, retry: { attempts: 2, delayMs: 100, on: ['timeout'] } }),
        ])
      ).id,
    );
    expect(run.status).toBe('failed');
    expect(run.error).toBe('Step "call" failed: Request timed out after 300 ms');
    expect(run.steps[0]?.attempts.map((attempt) => attempt.failure)).toEqual([
      'timeout',
      'timeout',
    ]);
    expect(target.at(path)).toHaveLength(2);
  });

  test('onFailure continue: the error is the step output and the next step reads it', async () => {
    const failing = `/fails-${runtime}`;
    const after = `/after-${runtime}`;
    target.script(failing, [500]);
    const run = await runToTheEnd(
      (
        await workflowOf('Goes on', [
          call(failing, { onFailure: { action: 'continue' } }),
          {
            type: 'http_request',
            name: 'report',
            settings: {
              method: 'POST',
              url: `${origin}${after}`,
              body: { previous: '{{steps.call.error}}', status: '{{steps.call.output.status}}' },
            },
          },
        ])
      ).id,
    );
    expect(run.status).toBe('succeeded');
    expect(run.steps.map((step) => step.status)).toEqual(['failed', 'succeeded']);
    expect(run.steps[0]?.output).toMatchObject({
      error: 'The server answered HTTP 500',
      output: { status: 500 },
    });
    expect(JSON.parse(target.at(after)[0]?.body ?? '{}')).toEqual({
      previous: 'The server answered HTTP 500',
      status: 500,
    });
  });

  test('onFailure run_workflow starts the failure workflow once, with the error and the run', async () => {
    const failing = `/fails-into-${runtime}`;
    const alerts = `/alerts-${runtime}`;
    target.script(failing, [503]);
    const handler = await workflowOf('On failure', [
      {
        type: 'http_request',
        name: 'alert',
        settings: {
          method: 'POST',
          url: `${origin}${alerts}`,
          body: { error: '{{Custom Webhook.error}}', run: '{{Custom Webhook.run.id}}' },
        },
      },
    ]);
    const failingWorkflow = await workflowOf('Fails into a workflow', [
      call(failing, { onFailure: { action: 'run_workflow', workflowId: handler.id } }),
    ]);
    const failed = await runToTheEnd(failingWorkflow.id);
    expect(failed.status).toBe('failed');
    const failureRun = await eventually(async () => {
      const listed = await http(`${stack.url}/workflows/${handler.id}/runs`, {
        cookie: owner.cookie,
      });
      const { runs } = listed.body as { runs: Run[] };
      const [only, ...others] = runs;
      expect(others).toEqual([]);
      if (!only) throw new Error('no run of the failure workflow yet');
      return only;
    }, 30_000);
    expect(failureRun.trigger).toMatchObject({ type: 'custom_webhook', failed_run_id: failed.id });
    const ended = await runEnded(failureRun.id);
    expect(ended.status).toBe('succeeded');
    expect(ended.input).toMatchObject({
      error: 'The server answered HTTP 503',
      run: { id: failed.id, workflow_id: failingWorkflow.id, step: { index: 0, name: 'call' } },
    });
    expect(target.at(alerts).map((request) => JSON.parse(request.body) as unknown)).toEqual([
      { error: 'The server answered HTTP 503', run: failed.id },
    ]);
  });

  test('policies that cannot hold are refused at save with the step named', async () => {
    const onDelay = await saveWorkflow('Delay retry', [
      { type: 'delay', settings: { seconds: 1 }, retry: { attempts: 2 } },
    ]);
    expect(onDelay.status).toBe(400);
    expect(JSON.stringify(onDelay.body)).toContain('retry applies to steps that call out');
    const unknown = await saveWorkflow('Unknown target', [
      call('/x', {
        onFailure: { action: 'run_workflow', workflowId: '00000000-0000-4000-8000-000000000000' },
      }),
    ]);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      error: 'A failure route names a workflow it cannot start',
      details: [{ path: 'body.steps.0.onFailure.workflowId' }],
    });
    const own = await workflowOf('Routes to itself', [call('/x')]);
    const toItself = await http(`${stack.url}/workflows/${own.id}`, {
      method: 'PATCH',
      cookie: owner.cookie,
      body: { steps: [call('/x', { onFailure: { action: 'run_workflow', workflowId: own.id } })] },
    });
    expect(toItself.status).toBe(400);
    expect(JSON.stringify(toItself.body)).toContain(
      'A failure cannot start the workflow that failed',
    );
    const badBackoff = await saveWorkflow('Bad backoff', [
      call('/x', { retry: { attempts: 3, delayMs: 5_000, maxDelayMs: 1_000 } }),
    ]);
    expect(badBackoff.status).toBe(400);
  });
});
