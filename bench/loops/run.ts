// `npm run bench:loops`: a for_each over 1,000 items of 3 steps each against 1,000 runs of a
// straight workflow of the same 3 steps (issue 43's acceptance), on the distributed runtime:
// storage, one workflow-runner and the gateway. The steps are a set, an http_request to a local
// server and a set: the engine's cost with one real call in each. Prints, for each, the time
// from the request to the last step's end and the runner's and PostgreSQL's CPU per step.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Run } from '@wap/contracts';
import { buildBundles, runBench, type OnCleanup } from '../shared/harness';
import { adminWorkspace } from '../shared/gateway-caller';
import { startBenchPlatform } from '../shared/platform';
import { cpuTimeMs, pidsOfCommand } from '../shared/processes';

const BenchEnv = z.object({
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  BENCH_ITEMS: z.coerce.number().int().min(1).max(10_000).default(1_000),
  /** The loop's concurrencies measured, comma-separated. */
  BENCH_CONCURRENCIES: z.string().default('1,20'),
  BENCH_CPU_PROF_DIR: z.string().optional(),
});

const POLL_MS = 100;
const STEPS_PER_ITEM = 3;

/** A local partner the http_request steps call; `/items` answers the loop's list. */
async function partner(items: number, onCleanup: OnCleanup): Promise<string> {
  const list = JSON.stringify({ items: Array.from({ length: items }, (_, index) => ({ index })) });
  const server = createServer((req, res) => {
    req.resume();
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(req.url === '/items' ? list : '{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onCleanup(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The three steps each item (or each straight run) takes. */
function itemSteps(origin: string, source: string) {
  return [
    { type: 'set', name: 'pick', settings: { values: { n: `{{${source}}}` } } },
    {
      type: 'http_request',
      name: 'send',
      settings: { method: 'POST', url: `${origin}/send`, body: { n: '{{vars.n}}' } },
    },
    { type: 'set', name: 'keep', settings: { values: { status: '{{steps.send.status}}' } } },
  ];
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  buildBundles(['gateway', 'storage', 'workflow-runner']);
  const origin = await partner(env.BENCH_ITEMS, onCleanup);
  const { databaseUrl, launch } = await startBenchPlatform(onCleanup, {
    natsUrl: env.NATS_URL,
    adminDatabaseUrl: env.DATABASE_URL,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  await launch.service('storage', 'storage', { DATABASE_URL: databaseUrl });
  const runner = await launch.service('workflow-runner', 'workflow-runner', {
    DATABASE_URL: databaseUrl,
    HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1',
  });
  const sessionSecret = randomBytes(32).toString('hex');
  const gateway = await launch.gateway(sessionSecret);
  const { call, workspaceId } = await adminWorkspace(
    gateway.url,
    sessionSecret,
    'Loops',
    1_000_000,
  );
  const workflowOf = async (name: string, steps: unknown[]) =>
    (
      await call<{ workflow: { id: string } }>('POST', '/workflows', {
        workspaceId,
        name,
        trigger: { type: 'custom_webhook' },
        steps,
      })
    ).workflow.id;
  const cpu = () => ({
    runner: cpuTimeMs(runner.pid) ?? 0,
    postgres: pidsOfCommand('postgres').reduce((sum, pid) => sum + (cpuTimeMs(pid) ?? 0), 0),
  });
  const steps = env.BENCH_ITEMS * STEPS_PER_ITEM;
  /** Times `work` (which returns when every step ended) and prints the figures per step. */
  async function timed(label: string, work: () => Promise<void>): Promise<void> {
    const before = cpu();
    const startedAt = performance.now();
    await work();
    const seconds = (performance.now() - startedAt) / 1000;
    const after = cpu();
    const perStep = (ms: number) => `${((ms * 1000) / steps).toFixed(0)} µs`;
    console.log(
      `\n${label}: ${steps} steps in ${seconds.toFixed(2)} s (${((seconds * 1e6) / steps).toFixed(0)} µs a step)` +
        `\n  CPU per step: runner ${perStep(after.runner - before.runner)}, PostgreSQL ${perStep(after.postgres - before.postgres)} (all its processes)`,
    );
  }

  const straight = await workflowOf('Straight', itemSteps(origin, 'Custom Webhook.n'));
  await timed(`straight: ${env.BENCH_ITEMS} runs of ${STEPS_PER_ITEM} steps`, async () => {
    for (let started = 0; started < env.BENCH_ITEMS; started += 20) {
      await Promise.all(
        Array.from({ length: Math.min(20, env.BENCH_ITEMS - started) }, () =>
          call('POST', `/workflows/${straight}/run`),
        ),
      );
    }
    for (;;) {
      const { counts } = await call<{ counts: { by_status: Record<string, number> } }>(
        'GET',
        `/workflows/${straight}/runs?limit=1`,
      );
      if (counts.by_status['succeeded'] === env.BENCH_ITEMS) return;
      if ((counts.by_status['failed'] ?? 0) > 0) throw new Error('a straight run failed');
      await sleep(POLL_MS);
    }
  });

  for (const concurrency of env.BENCH_CONCURRENCIES.split(',').map(Number)) {
    const loop = await workflowOf(`Loop ${concurrency}`, [
      { type: 'http_request', name: 'fetch', settings: { method: 'GET', url: `${origin}/items` } },
      {
        type: 'for_each',
        name: 'each',
        settings: { items: 'steps.fetch.body.items', maxItems: env.BENCH_ITEMS, concurrency },
        steps: itemSteps(origin, 'item.index'),
      },
    ]);
    await timed(
      `for_each of ${env.BENCH_ITEMS} items × ${STEPS_PER_ITEM} steps, concurrency ${concurrency}`,
      async () => {
        const { runId } = await call<{ runId: string }>('POST', `/workflows/${loop}/run`);
        for (;;) {
          const { run } = await call<{ run: Run }>('GET', `/runs/${runId}`);
          if (run.status === 'succeeded') return;
          if (run.status === 'failed') throw new Error(`the loop failed: ${run.error}`);
          await sleep(POLL_MS);
        }
      },
    );
  }
}

runBench(main);
