import { Client } from 'pg';
import { startProcessCluster, type ProcessCluster, type RunningProcess } from '@wap/testing';
import { adminCaller, liveWorkflow } from './live-workflow';

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
    const call = await adminCaller(gatewayUrl, SESSION_SECRET, 'Schedules');
    const { workflowId } = await liveWorkflow(call, {
      name: 'Every three seconds',
      credits: 1,
      steps: [],
    });
    await call('PUT', `/workflows/${workflowId}/schedule`, {
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
    await call('PUT', `/workflows/${workflowId}/schedule`, {
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
        [workflowId],
      );
      const runs = await client.query<{ fire_at: string; count: string }>(
        `select input->>'scheduledFor' as fire_at, count(*) as count from workflow_runner.runs
         where workflow_id = $1 and trigger_type = 'schedule' group by 1`,
        [workflowId],
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
