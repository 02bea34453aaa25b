import { Client } from 'pg';
import { mintSessionToken } from '@wap/auth';
import { startProcessCluster, type ProcessCluster, type RunningProcess } from '@wap/testing';
import { http } from './stack';

/**
 * Two workflow-runner processes on the distributed runtime share a schedule that fires every
 * three seconds for a minute; one of them is killed with `kill -9` halfway. Every fire of that
 * minute is decided once and has exactly one run: none lost, none doubled.
 */
const SESSION_SECRET = 'schedules-crash-secret-0123456789abcdef0123';
const FIRE_EVERY_S = 3;
const DURATION_MS = 60_000;

describe('a schedule across two runner processes, one killed', () => {
  let cluster: ProcessCluster;
  const start = (app: string) => cluster.start(app);
  const ready = (child: RunningProcess, name: string) => cluster.ready(child, name);

  beforeAll(async () => {
    cluster = await startProcessCluster({
      env: {
        SESSION_JWT_SECRET: SESSION_SECRET,
        // A killed runner's leased runs are taken over quickly.
        RUN_LEASE_MS: '2000',
      },
    });
  });

  afterAll(() => cluster?.stop());

  test('every fire has exactly one run; kill -9 of one runner loses none', async () => {
    const storage = start('storage');
    const runners = [start('workflow-runner'), start('workflow-runner')];
    const gateway = start('gateway');
    await Promise.all([
      ready(storage, 'storage'),
      ...runners.map((runner) => ready(runner, 'workflow-runner')),
    ]);
    const [, gatewayUrl = ''] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    const cookie = `session=${await mintSessionToken({
      secret: SESSION_SECRET,
      sub: 'test|schedules@example.com',
      email: 'schedules@example.com',
      name: 'Schedules',
      platformAdmin: true,
    })}`;
    const call = async <Reply = unknown>(method: string, path: string, body?: unknown) => {
      const response = await http(`${gatewayUrl}${path}`, { method, cookie, body });
      expect(response.status).toBeLessThan(300);
      return response.body as Reply;
    };
    const { workspace } = await call<{ workspace: { id: string } }>('POST', '/workspaces', {
      name: 'Schedules',
    });
    await call('POST', `/workspaces/${workspace.id}/credits/grants`, { amount: 1, reason: 'e2e' });
    const { workflow } = await call<{ workflow: { id: string } }>('POST', '/workflows', {
      workspaceId: workspace.id,
      name: 'Every three seconds',
      trigger: { type: 'custom_webhook' },
      steps: [],
    });
    const { runId } = await call<{ runId: string }>('POST', `/workflows/${workflow.id}/run`);
    for (;;) {
      const { run } = await call<{ run: { status: string } }>('GET', `/runs/${runId}`);
      if (run.status === 'succeeded') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await call('POST', `/workflows/${workflow.id}/live`);
    await call('PUT', `/workflows/${workflow.id}/schedule`, {
      schedule_type: 'cron',
      cron_expression: `*/${FIRE_EVERY_S} * * * * *`,
    });
    // Counted from when the schedule surely exists: on a busy machine the PUT itself may outlast
    // a fire time, which then belongs to no schedule yet.
    const startedAt = Date.now();

    await new Promise((resolve) => setTimeout(resolve, DURATION_MS / 2));
    runners[0]?.child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, DURATION_MS / 2));
    const endedAt = Date.now();
    // The schedule stops, so what is counted is exactly the minute under test.
    await call('PUT', `/workflows/${workflow.id}/schedule`, {
      schedule_type: 'cron',
      cron_expression: `*/${FIRE_EVERY_S} * * * * *`,
      is_enabled: false,
    });

    const client = new Client({ connectionString: cluster.database.url });
    await client.connect();
    try {
      const fires = await client.query<{ fire_at: Date; outcome: string; run_id: string | null }>(
        `select fire_at, outcome, run_id from workflow_runner.schedule_fires
         where workflow_id = $1 order by fire_at`,
        [workflow.id],
      );
      const runs = await client.query<{ fire_at: string; count: string }>(
        `select input->>'scheduledFor' as fire_at, count(*) as count from workflow_runner.runs
         where workflow_id = $1 and trigger_type = 'schedule' group by 1`,
        [workflow.id],
      );
      // Every fire time of the minute, three seconds apart, is on record.
      const expected: number[] = [];
      const step = FIRE_EVERY_S * 1000;
      for (let at = Math.ceil((startedAt + 1) / step) * step; at <= endedAt - step; at += step) {
        expected.push(at);
      }
      const recorded = fires.rows.map((row) => row.fire_at.getTime());
      for (const at of expected) expect(recorded).toContain(at);
      expect(new Set(recorded).size).toBe(recorded.length);
      // Each fire started one run (the steps are instant: none overlaps the next fire).
      expect(fires.rows.filter((row) => row.outcome !== 'started')).toEqual([]);
      expect(runs.rows.length).toBe(fires.rows.length);
      expect(runs.rows.every((row) => Number(row.count) === 1)).toBe(true);
    } finally {
      await client.end();
    }
  }, 150_000);
});
