// `npm run bench:schedules`: 10,000 schedules firing every minute for 3 minutes, decided by two
// workflow-runner processes on NATS and PostgreSQL. Prints the lag from each fire's due time to
// its run's start (p50, p99, max), double fires and missed fires, and the CPU a fire costs.
// Targets: p99 lag under 1 s, 0 double, 0 missed. BENCH_SCHEDULES=50000 shows the curve.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { buildBundles, runBench, sql, type OnCleanup } from '../shared/harness';
import { startBenchPlatform } from '../shared/platform';
import { cpuTimeMs, pidsOfCommand } from '../shared/processes';

const BenchEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Schedules (one workflow each), all firing at the start of every minute. */
  BENCH_SCHEDULES: z.coerce.number().int().positive().default(10_000),
  /** Minutes of fires measured. */
  BENCH_MINUTES: z.coerce.number().int().positive().default(3),
  /** Runs each runner executes at once (its RUN_CONCURRENCY). */
  BENCH_RUN_CONCURRENCY: z.coerce.number().int().positive().default(256),
  /** When set, the runners write V8 CPU profiles (.cpuprofile) into this folder. */
  BENCH_CPU_PROF_DIR: z.string().optional(),
});

const P99_TARGET_MS = 1_000;
const MINUTE_MS = 60_000;

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['workflow-runner']);
  const { databaseUrl, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const runners = await Promise.all(
    ['runner-1', 'runner-2'].map((name) =>
      // As bench:webhooks runs it: the deployment's heap setting, room for a burst of runs.
      launch.service(name, 'workflow-runner', {
        DATABASE_URL: databaseUrl,
        RUN_CONCURRENCY: String(env.BENCH_RUN_CONCURRENCY),
        NODE_OPTIONS: '--max-semi-space-size=64',
      }),
    ),
  );

  // The schedules are written straight into the runner's tables (their API would take 30,000
  // requests to create, run and set live 10,000 workflows): live workflows without steps, one
  // interval schedule each, all owed at the start of the next minute but one.
  const workspaceId = randomUUID();
  const userId = randomUUID();
  const firstFire = Math.ceil((Date.now() + MINUTE_MS) / MINUTE_MS) * MINUTE_MS;
  const anchor = new Date(firstFire - MINUTE_MS).toISOString();
  await sql(
    databaseUrl,
    `insert into workflow_runner.credit_ledger (id, workspace_id, amount, kind, reason, created_at)
     values ($1, $2, 1000000000, 'grant', 'bench', now())`,
    [randomUUID(), workspaceId],
  );
  await sql(
    databaseUrl,
    `with created as (
       insert into workflow_runner.workflows (id, workspace_id, name, status, steps,
         queue_outside_window, stop_on_node_failure, credit_cost, created_by, created_at, updated_at)
       select gen_random_uuid(), $1, 'bench ' || i, 'live', '[]'::jsonb, true, true, 0, $2, now(), now()
       from generate_series(1, $3) as i
       returning id
     )
     insert into workflow_runner.workflow_schedules (workflow_id, workspace_id, is_enabled, timezone,
       schedule_type, interval_minutes, anchor_at, next_fire_at, updated_at)
     select id, $1, true, 'UTC', 'interval', 1, $4::timestamptz, $4::timestamptz + interval '1 minute', now()
     from created`,
    [workspaceId, userId, env.BENCH_SCHEDULES, anchor],
  );
  const lastFire = firstFire + (env.BENCH_MINUTES - 1) * MINUTE_MS;
  console.log(
    `${env.BENCH_SCHEDULES} schedules on two runners of RUN_CONCURRENCY ${env.BENCH_RUN_CONCURRENCY}, fires at ${new Date(firstFire).toISOString()} to ${new Date(lastFire).toISOString()}`,
  );
  // CPU from here to the end is the fires' (decided ahead, started, ended) and idle passes'.
  // PostgreSQL's backends are counted from their start when they start later (pools open
  // connections as they need them).
  const cpuOf = (pids: readonly number[]) => new Map(pids.map((pid) => [pid, cpuTimeMs(pid) ?? 0]));
  const cpuSince = (before: Map<number, number>, pids: readonly number[]) =>
    [...cpuOf(pids)].reduce((total, [pid, used]) => total + used - (before.get(pid) ?? 0), 0);
  const runnerPids = runners.map((runner) => runner.pid);
  const cpuBefore = { runners: cpuOf(runnerPids), postgres: cpuOf(pidsOfCommand('postgres')) };
  // Until the last fire's runs have had time to start, then the schedules stop.
  await new Promise((resolve) => setTimeout(resolve, lastFire + 20_000 - Date.now()));
  await sql(databaseUrl, 'update workflow_runner.workflow_schedules set is_enabled = false');
  const cpuUsed = {
    runners: cpuSince(cpuBefore.runners, runnerPids),
    postgres: cpuSince(cpuBefore.postgres, pidsOfCommand('postgres')),
  };

  const window = [new Date(firstFire).toISOString(), new Date(lastFire).toISOString()];
  const [lag] = await sql<{ p50: number; p99: number; max: number; runs: string }>(
    databaseUrl,
    `select percentile_cont(0.5) within group (order by lag) as p50,
            percentile_cont(0.99) within group (order by lag) as p99,
            max(lag) as max, count(*) as runs
     from (select extract(epoch from (r.started_at - f.fire_at)) * 1000 as lag
           from workflow_runner.schedule_fires f join workflow_runner.runs r on r.id = f.run_id
           where f.fire_at between $1 and $2) as lags`,
    window,
  );
  // Where the lag goes: fires are decided ahead of their due time (decision 139); one decided
  // late waits for its decision, one decided ahead only for its start.
  const [split] = await sql<{ ahead_p50: number; late: string; started_p99: number }>(
    databaseUrl,
    `select percentile_cont(0.5) within group (order by extract(epoch from (f.fire_at - f.recorded_at)) * 1000) as ahead_p50,
            count(*) filter (where f.recorded_at > f.fire_at) as late,
            percentile_cont(0.99) within group (order by extract(epoch from (r.started_at - greatest(f.recorded_at, f.fire_at))) * 1000) as started_p99
     from workflow_runner.schedule_fires f join workflow_runner.runs r on r.id = f.run_id
     where f.fire_at between $1 and $2`,
    window,
  );
  const [doubles] = await sql<{ count: string }>(
    databaseUrl,
    `select count(*) as count from (
       select workflow_id, input->>'scheduledFor' from workflow_runner.runs
       where trigger_type = 'schedule' group by 1, 2 having count(*) > 1) as doubled`,
  );
  const outcomes = await sql<{ outcome: string; count: string }>(
    databaseUrl,
    `select outcome, count(*) as count from workflow_runner.schedule_fires
     where fire_at between $1 and $2 group by 1 order by 1`,
    window,
  );
  const [missedBefore] = await sql<{ sum: string | null }>(
    databaseUrl,
    'select sum(missed_before) as sum from workflow_runner.schedule_fires',
  );
  const recorded = outcomes.reduce((total, row) => total + Number(row.count), 0);
  const expected = env.BENCH_SCHEDULES * env.BENCH_MINUTES;
  const missed = expected - recorded + Number(missedBefore?.sum ?? 0);
  const notStarted = outcomes.filter((row) => row.outcome !== 'started');

  console.log(`\nfires expected ${expected}, recorded ${recorded}`);
  for (const row of outcomes) console.log(`  ${row.outcome}: ${row.count}`);
  console.log(
    `lag from due time to run start over ${lag?.runs} runs: p50 ${Number(lag?.p50).toFixed(0)} ms, p99 ${Number(lag?.p99).toFixed(0)} ms, max ${Number(lag?.max).toFixed(0)} ms`,
  );
  console.log(
    `  fires decided ahead by p50 ${Number(split?.ahead_p50).toFixed(0)} ms, decided after their due time ${split?.late}; p99 from due time (or a late decision) to the run's start ${Number(split?.started_p99).toFixed(0)} ms`,
  );
  console.log(`double fires: ${doubles?.count}, missed fires: ${missed}`);
  console.log(
    `CPU per fire: runners ${((cpuUsed.runners * 1000) / recorded).toFixed(0)} µs, PostgreSQL ${((cpuUsed.postgres * 1000) / recorded).toFixed(0)} µs (all its processes)`,
  );
  console.log(`runners: ${runners.map((runner) => runner.pid).join(', ')}`);
  console.log('\ntargets');
  console.log(
    `  p99 lag under ${P99_TARGET_MS} ms: ${Number(lag?.p99) < P99_TARGET_MS ? 'holds' : 'MISSES'}`,
  );
  console.log(`  0 double: ${Number(doubles?.count) === 0 ? 'holds' : 'MISSES'}`);
  console.log(`  0 missed: ${missed === 0 && notStarted.length === 0 ? 'holds' : 'MISSES'}`);
}

runBench(main);
