// `npm run bench:runs`: how long a bulk cancel of 1,000 running runs takes, and a bulk replay of
// the 1,000 cancelled ones (issue 42's acceptance), through the gateway on the distributed
// runtime: storage, one workflow-runner at its default batch pace (RUN_BATCH_* to change it) and
// the gateway. The runs are asleep in a delay of an hour when the cancel is asked for, as runs
// waiting on a slow partner are. Prints, for each batch, the time until the batch ended and until
// the last of its runs was seen in its new state, and the runner's and PostgreSQL's CPU per run.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { RunBatch } from '@wap/contracts';
import { buildBundles, runBench, type OnCleanup } from '../shared/harness';
import { adminWorkspace } from '../shared/gateway-caller';
import { startBenchPlatform } from '../shared/platform';
import { cpuTimeMs, pidsOfCommand } from '../shared/processes';

const BenchEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Runs cancelled, then replayed (a batch takes at most 1,000). */
  BENCH_RUNS: z.coerce.number().int().min(1).max(1_000).default(1_000),
  /** The runner's pace, passed on as its RUN_BATCH_* settings when set. */
  RUN_BATCH_INTERVAL_MS: z.string().optional(),
  RUN_BATCH_REPLAYS_PER_PASS: z.string().optional(),
  RUN_BATCH_CANCELS_PER_PASS: z.string().optional(),
  BENCH_CPU_PROF_DIR: z.string().optional(),
});

/** How often the bench looks at the batch and the run counts while it waits. */
const POLL_MS = 50;

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['gateway', 'storage', 'workflow-runner']);
  const { databaseUrl, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const pace = Object.fromEntries(
    (
      ['RUN_BATCH_INTERVAL_MS', 'RUN_BATCH_REPLAYS_PER_PASS', 'RUN_BATCH_CANCELS_PER_PASS'] as const
    ).flatMap((name) => (env[name] ? [[name, env[name]]] : [])),
  );
  await launch.service('storage', 'storage', { DATABASE_URL: databaseUrl });
  const runner = await launch.service('workflow-runner', 'workflow-runner', {
    DATABASE_URL: databaseUrl,
    ...pace,
  });
  const sessionSecret = randomBytes(32).toString('hex');
  const gateway = await launch.gateway(sessionSecret);
  const { call, workspaceId } = await adminWorkspace(gateway.url, sessionSecret, 'Runs', 100_000);
  const { workflow } = await call<{ workflow: { id: string } }>('POST', '/workflows', {
    workspaceId,
    name: 'Waits on a partner',
    trigger: { type: 'custom_webhook' },
    steps: [{ type: 'delay', name: 'an hour', settings: { seconds: 3_600 } }],
  });
  const countsOf = async () =>
    (
      await call<{ counts: { by_status: Record<string, number> } }>(
        'GET',
        `/workflows/${workflow.id}/runs?limit=1`,
      )
    ).counts.by_status;
  const until = async (holds: (counts: Record<string, number>) => boolean) => {
    while (!holds(await countsOf())) await sleep(POLL_MS);
  };

  console.log(`starting ${env.BENCH_RUNS} runs, each asleep in a delay of an hour`);
  for (let started = 0; started < env.BENCH_RUNS; started += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, env.BENCH_RUNS - started) }, () =>
        call('POST', `/workflows/${workflow.id}/run`),
      ),
    );
  }
  await until((counts) => counts.running === env.BENCH_RUNS);

  const cpu = () => ({
    runner: cpuTimeMs(runner.pid) ?? 0,
    postgres: pidsOfCommand('postgres').reduce((sum, pid) => sum + (cpuTimeMs(pid) ?? 0), 0),
  });
  /** Asks for a batch and waits for it and for its runs, printing the figures. */
  async function timed(
    label: string,
    path: string,
    body: unknown,
    done: (counts: Record<string, number>) => boolean,
  ): Promise<void> {
    const cpuBefore = cpu();
    const askedAt = performance.now();
    const { batch } = await call<{ batch: RunBatch }>('POST', path, body);
    const answeredAt = performance.now();
    let ended: RunBatch = batch;
    while (ended.status === 'running') {
      await sleep(POLL_MS);
      ended = (await call<{ batch: RunBatch }>('GET', `/run-batches/${batch.id}`)).batch;
    }
    const batchEndedAt = performance.now();
    await until(done);
    const allSeenAt = performance.now();
    const cpuAfter = cpu();
    const perRun = (ms: number) => `${((ms * 1000) / batch.total).toFixed(0)} µs`;
    console.log(
      `\n${label} of ${batch.total} runs: answered in ${(answeredAt - askedAt).toFixed(0)} ms, ` +
        `batch ${ended.status} after ${((batchEndedAt - askedAt) / 1000).toFixed(2)} s, ` +
        `every run ${label === 'cancel' ? 'cancelled' : 'asleep again'} after ${((allSeenAt - askedAt) / 1000).toFixed(2)} s` +
        `\n  progress ${JSON.stringify(ended.progress)}` +
        `\n  CPU per run: runner ${perRun(cpuAfter.runner - cpuBefore.runner)}, PostgreSQL ${perRun(cpuAfter.postgres - cpuBefore.postgres)} (all its processes)`,
    );
  }

  const total = env.BENCH_RUNS;
  console.log(
    `runner pace: ${Object.keys(pace).length > 0 ? JSON.stringify(pace) : 'the defaults (RUN_BATCH_INTERVAL_MS 1000, 50 replays and 500 cancels a pass)'}`,
  );
  await timed(
    'cancel',
    `/workflows/${workflow.id}/runs/cancel`,
    { filter: { status: 'running' } },
    (counts) => counts.cancelled === total,
  );
  await timed(
    'replay',
    `/workflows/${workflow.id}/runs/replay`,
    { filter: { status: 'cancelled' }, from: 'start' },
    (counts) => counts.running === total,
  );
}

runBench(main);
