import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { Run } from '@wap/contracts';
import {
  eventually,
  startProcessCluster,
  type ProcessCluster,
  type RunningProcess,
} from '@wap/testing';
import { adminCaller, type Call } from './live-workflow';

/**
 * Step attempts across a workflow-runner killed with `kill -9` on the distributed runtime
 * (issue 42 items 4 and 6): killed during a retry's backoff, the next attempt is made once, at
 * its time; killed during an attempt, the attempt is made again by the runner that resumes the
 * run, with the same Idempotency-Key, and the run marks the step resumed. Never more requests
 * than the policy says, one charge.
 */
const SESSION_SECRET = 'step-attempts-crash-secret-0123456789abcdef';
const BACKOFF_MS = 4_000;

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
}

describe('step attempts across a runner killed with kill -9', () => {
  let cluster: ProcessCluster;
  let server: Server;
  let origin: string;
  const received = new Map<string, Received[]>();
  /** Per path, the answers still to give: the last one repeats; `hang` never answers. */
  const scripts = new Map<string, (number | 'hang')[]>();
  let call: Call;
  let workspaceId: string;
  /** The one runner up: each test kills it and starts its successor. */
  let runner: RunningProcess;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '';
      received.set(path, [...(received.get(path) ?? []), { at: Date.now(), headers: req.headers }]);
      const script = scripts.get(path) ?? [200];
      const answer = script.length > 1 ? script.shift() : script[0];
      req.resume();
      if (answer === 'hang') return;
      res.writeHead(answer ?? 200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cluster = await startProcessCluster({
      env: {
        SESSION_JWT_SECRET: SESSION_SECRET,
        // A killed runner's leased runs are taken over quickly.
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
    call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Attempts');
    const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
      name: 'Attempts',
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

  async function startedRun(path: string, step: Record<string, unknown> = {}): Promise<string> {
    const { workflow } = await call<{ workflow: { id: string } }>('POST', '/workflows', {
      workspaceId,
      name: `Calls ${path}`,
      trigger: { type: 'custom_webhook' },
      steps: [
        {
          type: 'http_request',
          name: 'call',
          settings: { method: 'POST', url: `${origin}${path}` },
          ...step,
        },
      ],
    });
    const { runId } = await call<{ runId: string }>('POST', `/workflows/${workflow.id}/run`);
    return runId;
  }

  const endedRun = (runId: string) =>
    eventually(async () => {
      const { run } = await call<{ run: Run }>('GET', `/runs/${runId}`);
      expect(['succeeded', 'failed']).toContain(run.status);
      return run;
    }, 60_000);

  /**
   * `kill -9` of the runner and a new one in its place; the run then ends succeeded, its step
   * having sent `path` two requests in all.
   */
  async function endedAfterAKill(runId: string, path: string) {
    runner.child.kill('SIGKILL');
    runner = cluster.start('workflow-runner');
    await cluster.ready(runner, 'workflow-runner');
    const run = await endedRun(runId);
    expect(run.status).toBe('succeeded');
    const requests = received.get(path) ?? [];
    expect(requests).toHaveLength(2);
    return { run, requests };
  }

  async function stepRow(runId: string) {
    const client = new Client({ connectionString: cluster.database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ attempt: number; resume_at: Date | null }>(
        'select attempt, resume_at from workflow_runner.run_steps where run_id = $1',
        [runId],
      );
      return rows[0];
    } finally {
      await client.end();
    }
  }

  test('killed during a backoff: the next attempt is made once, when it is due', async () => {
    const path = '/backoff';
    scripts.set(path, [503, 200]);
    const runId = await startedRun(path, {
      retry: { attempts: 3, backoff: 'fixed', delayMs: BACKOFF_MS, jitter: false },
    });
    // The first attempt failed and its retry is on record: the runner dies during the wait.
    await eventually(async () => expect((await stepRow(runId))?.resume_at).not.toBeNull(), 30_000);
    const { run, requests } = await endedAfterAKill(runId, path);
    const [first, second] = requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(BACKOFF_MS);
    expect(run.steps[0]?.attempts.map(({ number, resumed }) => ({ number, resumed }))).toEqual([
      { number: 1, resumed: false },
      { number: 2, resumed: false },
    ]);
    expect(run.credits_charged).toBe(1);
  }, 150_000);

  test('killed during an attempt: it is made again with the same key, and the step says so', async () => {
    const path = '/hangs-once';
    scripts.set(path, ['hang', 200]);
    const runId = await startedRun(path);
    await eventually(async () => expect(received.get(path)).toHaveLength(1), 30_000);
    const { run, requests } = await endedAfterAKill(runId, path);
    const keys = requests.map((request) => request.headers['idempotency-key']);
    expect(keys).toEqual([`${runId}:0:0`, `${runId}:0:0`]);
    expect(run.steps[0]).toMatchObject({
      resumed: true,
      attempts: [expect.objectContaining({ number: 1, resumed: true, error: null })],
      credits_charged: 1,
    });
  }, 150_000);
});
