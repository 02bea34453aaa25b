import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Run } from '@wap/contracts';
import {
  eventually,
  startProcessCluster,
  type ProcessCluster,
  type RunningProcess,
} from '@wap/testing';
import { adminCaller, type Call } from './live-workflow';

/**
 * A for_each across a workflow-runner killed with `kill -9` on the distributed runtime (issue 43
 * acceptance, decision 165): the runner dies while an iteration's request is in flight; the one
 * that takes over finishes the loop without repeating a finished iteration. The cut-off
 * iteration's request is made again with its same Idempotency-Key; every other item is sent once.
 */
const SESSION_SECRET = 'loops-crash-secret-0123456789abcdef0123';
const ITEMS = 6;
const CUT_OFF = 3;

describe('a for_each across a runner killed with kill -9', () => {
  let cluster: ProcessCluster;
  let server: Server;
  let origin: string;
  const received = new Map<string, IncomingHttpHeaders[]>();
  let call: Call;
  let workspaceId: string;
  let runner: RunningProcess;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      const before = received.get(path) ?? [];
      received.set(path, [...before, req.headers]);
      req.resume();
      // The cut-off item's first request is never answered: the runner dies waiting for it.
      if (path === `/item/${CUT_OFF}` && before.length === 0) return;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cluster = await startProcessCluster({
      env: {
        SESSION_JWT_SECRET: SESSION_SECRET,
        RUN_LEASE_MS: '2000',
        HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1',
      },
    });
    const storage = cluster.start('storage');
    const gateway = cluster.start('gateway');
    runner = cluster.start('workflow-runner');
    await Promise.all([
      cluster.ready(storage, 'storage'),
      cluster.ready(runner, 'workflow-runner'),
    ]);
    const [, gatewayUrl = ''] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Loops');
    const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
      name: 'Loops',
    });
    workspaceId = workspace.id;
    await call('POST', `/workspaces/${workspaceId}/credits/grants`, {
      amount: 100,
      reason: 'e2e',
    });
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  test('the loop resumes where it was: no finished iteration runs again', async () => {
    const { workflow } = await call<{ workflow: { id: string } }>('POST', '/workflows', {
      workspaceId,
      name: 'Each item',
      trigger: { type: 'custom_webhook' },
      steps: [
        {
          type: 'for_each',
          name: 'each',
          settings: { items: `[${Array.from({ length: ITEMS }, (_, index) => index).join(', ')}]` },
          steps: [
            {
              type: 'http_request',
              name: 'send',
              settings: { method: 'POST', url: `${origin}/item/{{index}}` },
            },
          ],
        },
      ],
    });
    const { runId } = await call<{ runId: string }>('POST', `/workflows/${workflow.id}/run`);
    await eventually(async () => expect(received.get(`/item/${CUT_OFF}`)).toHaveLength(1), 30_000);
    runner.child.kill('SIGKILL');
    runner = cluster.start('workflow-runner');
    await cluster.ready(runner, 'workflow-runner');

    const run = await eventually(async () => {
      const { run: current } = await call<{ run: Run }>('GET', `/runs/${runId}`);
      expect(['succeeded', 'failed']).toContain(current.status);
      return current;
    }, 90_000);
    expect(run.status).toBe('succeeded');
    for (let index = 0; index < ITEMS; index += 1) {
      expect([index, received.get(`/item/${index}`)?.length]).toEqual([
        index,
        index === CUT_OFF ? 2 : 1,
      ]);
    }
    const output = run.steps[0]?.output as { count: number; iterations: { run_id: string }[] };
    expect(output.count).toBe(ITEMS);
    const cutOff = output.iterations[CUT_OFF]?.run_id ?? '';
    const keys = received.get(`/item/${CUT_OFF}`)?.map((headers) => headers['idempotency-key']);
    expect(keys).toEqual([`${cutOff}:0:0`, `${cutOff}:0:0`]);
    const { run: iteration } = await call<{ run: Run }>('GET', `/runs/${cutOff}`);
    expect(iteration.steps[0]).toMatchObject({ resumed: true, credits_charged: 1 });
  }, 180_000);
});
