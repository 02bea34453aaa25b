// `npm run bench:webhooks`: POST /webhooks/{id} through the distributed runtime — the gateway,
// two webhook-ingest processes, storage and the workflow runner, each its own process — on a
// live workflow of one free step, with a distinct body per request; against a bare node:http
// server that parses the JSON and publishes it once to JetStream, awaiting the ack.
// Targets: ≥ 40% of the baseline's throughput, no errors, p99 ≤ 50 ms, and every accepted
// request has its run within 10 s after the load ends (and none has two). Then, for reading only,
// both take an open-loop load at BENCH_PACED_RATE (500 req/s by default): their latency when
// the CPUs are not saturated.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { z } from 'zod';
import { mintSessionToken } from '@wap/auth';
import { removeNamespaceFromNats } from '@wap/testing';
import {
  buildBundles,
  createDatabase,
  percentile,
  repoRoot,
  runAutocannon,
  sql,
  benchEnvSchema,
  runBench,
  type OnCleanup,
} from '../shared/harness';
import { runPacedLoad } from '../shared/paced-load';
import {
  cpuTimeMs,
  createProcessGroup,
  serviceLauncher,
  pidsOfCommand,
  type ProcessGroup,
} from '../shared/processes';

const BenchEnv = benchEnvSchema(30).extend({
  /**
   * After the saturating runs, both targets also take an open-loop load at this many requests a
   * second (0: not measured), to show their latency below saturation. Not one of the targets.
   */
  BENCH_PACED_RATE: z.coerce.number().min(0).default(500),
});
type BenchEnv = z.infer<typeof BenchEnv>;

const MIN_THROUGHPUT_RATIO = 0.4;
const MAX_P99_MS = 50;
/** Every accepted request must have its run this long after the load ends. */
const RUNS_DEADLINE_MS = 10_000;

interface Measurement {
  target: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  const group = createProcessGroup();
  process.once('exit', () => group.killAllNow());

  buildBundles(['gateway', 'storage', 'workflow-runner', 'webhook-ingest']);
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  onCleanup(() => removeNamespaceFromNats(env.NATS_URL, namespace));
  const databaseUrl = await createDatabase(env.DATABASE_URL, namespace, onCleanup);
  // Cleanups run in reverse: the processes stop before their database and streams go.
  onCleanup(() => group.stopAll());
  const sessionSecret = randomBytes(32).toString('hex');
  const { gatewayUrl, processes } = await startDistributedRuntime(group, {
    natsUrl: env.NATS_URL,
    databaseUrl,
    namespace,
    sessionSecret,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const webhookPath = await createLiveWorkflow(gatewayUrl, sessionSecret);
  const baselineServer = await startBaseline(group, env.NATS_URL, namespace);

  console.log(
    `\nPOST /webhooks/{id}, distinct bodies, ${env.BENCH_CONNECTIONS} connections, ` +
      `${env.BENCH_DURATION_S} s each, ${cpus().length} CPUs, Node ${process.version}\n`,
  );
  const platformUrl = `${gatewayUrl}${webhookPath}`;
  const platformProcesses = [...processes, ...SHARED_PROCESSES];
  const baselineUrl = `${baselineServer.url}/hook`;
  const baselineProcesses = [
    { name: 'baseline', pids: () => [baselineServer.pid] },
    ...SHARED_PROCESSES,
  ];
  const accepted: string[] = [];
  const platform = await measure(
    'platform (gateway → webhook-ingest ×2)',
    platformUrl,
    env,
    accepted,
    platformProcesses,
  );
  const loadEnded = Date.now();
  const runs = await awaitRuns(databaseUrl, accepted, loadEnded);
  const baseline = await measure('JetStream baseline', baselineUrl, env, [], baselineProcesses);

  printTable([platform, baseline]);
  if (!reportTargets(platform, baseline, runs)) process.exitCode = 1;

  if (env.BENCH_PACED_RATE > 0) {
    console.log(
      `\nBelow saturation: an open-loop load of ${env.BENCH_PACED_RATE} req/s for ` +
        `${env.BENCH_DURATION_S / 2} s each (latency from when each request was due)\n`,
    );
    const pacedAccepted: string[] = [];
    const platformPaced = await measurePaced(
      'platform, paced',
      platformUrl,
      env,
      pacedAccepted,
      platformProcesses,
    );
    const pacedRuns = await awaitRuns(databaseUrl, pacedAccepted, Date.now());
    const baselinePaced = await measurePaced(
      'JetStream baseline, paced',
      baselineUrl,
      env,
      [],
      baselineProcesses,
    );
    printTable([platformPaced, baselinePaced]);
    console.log(
      `\npaced requests with their run ${pacedRuns.afterMs} ms after the load: ` +
        `${pacedRuns.withRun} of ${pacedRuns.accepted}, ${pacedRuns.duplicated} with more than one`,
    );
  }
}

/** Storage, the runner, two webhook-ingest replicas and the gateway; the gateway's URL. */
async function startDistributedRuntime(
  group: ProcessGroup,
  options: {
    natsUrl: string;
    databaseUrl: string;
    namespace: string;
    sessionSecret: string;
    cpuProfileDir?: string;
  },
): Promise<{ gatewayUrl: string; processes: WatchedProcess[] }> {
  const processes: WatchedProcess[] = [];
  const launch = serviceLauncher(group, { repoRoot, ...options });
  const service = async (name: string, app: string, env: Record<string, string> = {}) => {
    const child = await launch.service(name, app, { DATABASE_URL: options.databaseUrl, ...env });
    processes.push({ name, pids: () => [child.pid] });
  };
  await service('storage', 'storage');
  // As deploy/k8s/workflow-runner.yaml runs it.
  await service('workflow-runner', 'workflow-runner', {
    RUN_CONCURRENCY: '256',
    NODE_OPTIONS: '--max-semi-space-size=64',
  });
  // The bench measures throughput: the per-address rate limit must not be what it finds.
  const ingestEnv = {
    WEBHOOK_RATE_LIMIT_PER_SECOND: '1000000',
    WEBHOOK_RATE_LIMIT_BURST: '1000000',
  };
  await service('webhook-ingest-1', 'webhook-ingest', ingestEnv);
  await service('webhook-ingest-2', 'webhook-ingest', ingestEnv);

  const gateway = await launch.gateway(options.sessionSecret);
  processes.push({ name: 'gateway', pids: () => [gateway.process.pid] });
  return { gatewayUrl: gateway.url, processes };
}

/** A workspace with credits and a live workflow of one free delay step; its webhook path. */
async function createLiveWorkflow(gatewayUrl: string, sessionSecret: string): Promise<string> {
  const cookie = `session=${await mintSessionToken({
    secret: sessionSecret,
    sub: 'bench|bench@example.com',
    email: 'bench@example.com',
    name: 'Bench',
    platformAdmin: true,
    expiresInSec: 3600,
  })}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300)
      throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const { workspace } = (await call('POST', '/workspaces', { name: 'Bench' })) as {
    workspace: { id: string };
  };
  await call('POST', `/workspaces/${workspace.id}/credits/grants`, { amount: 1, reason: 'bench' });
  const { workflow, webhook } = (await call('POST', '/workflows', {
    workspaceId: workspace.id,
    name: 'Bench',
    trigger: { type: 'custom_webhook' },
    steps: [{ type: 'delay', name: 'free step', settings: { seconds: 0 } }],
  })) as { workflow: { id: string }; webhook: { id: string } };
  const { runId } = (await call('POST', `/workflows/${workflow.id}/run`)) as { runId: string };
  for (;;) {
    const { run } = (await call('GET', `/runs/${runId}`)) as { run: { status: string } };
    if (run.status === 'succeeded') break;
    if (run.status === 'failed') throw new Error('the test run of the bench workflow failed');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await call('POST', `/workflows/${workflow.id}/live`);
  return `/webhooks/${webhook.id}`;
}

async function startBaseline(group: ProcessGroup, natsUrl: string, namespace: string) {
  const child = group.start(
    'jetstream-baseline',
    ['--import', 'tsx', join(__dirname, 'jetstream-baseline.ts')],
    {
      NATS_URL: natsUrl,
      BENCH_STREAM: `${namespace.toUpperCase()}_BENCH_BASELINE`,
      BENCH_SUBJECT: `${namespace}.bench.baseline`,
    },
  );
  const { port } = await child.firstMessage<{ port: number }>();
  return { url: `http://127.0.0.1:${port}`, pid: child.pid };
}

let sequence = 0;
/** A body no other request of the bench has, so none is skipped as a duplicate. */
function distinctBody(): string {
  return JSON.stringify({ order: (sequence += 1), nonce: randomBytes(6).toString('hex') });
}

/** Keeps the eventId of a request that started a run. */
function keepAccepted(acceptedEventIds: string[], status: number, body: string): void {
  if (status < 200 || status >= 300) return;
  const parsed = JSON.parse(body) as { eventId?: string; triggered?: number };
  if (parsed.eventId && parsed.triggered !== 0) acceptedEventIds.push(parsed.eventId);
}

/**
 * A warm-up run, then the measured run. Every request carries a body of its own (no two are
 * identical, so none is skipped as a duplicate); the eventIds of accepted requests are kept.
 */
async function measure(
  target: string,
  url: string,
  env: BenchEnv,
  acceptedEventIds: string[],
  processes: readonly WatchedProcess[],
): Promise<Measurement> {
  const latencies: number[] = [];
  const options = (duration: number): autocannon.Options => ({
    url,
    connections: env.BENCH_CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => ({ ...request, body: distinctBody() }),
        onResponse: (status, body) => keepAccepted(acceptedEventIds, status, body),
      },
    ],
  });
  await runAutocannon(options(Math.min(3, Math.max(1, env.BENCH_DURATION_S / 5))));
  const cpuBefore = cpuOf(processes);
  const loadStarted = Date.now();
  const latenciesBySecond: number[][] = [];
  const result = await runAutocannon(options(env.BENCH_DURATION_S), (status, ms) => {
    if (status < 200 || status >= 300) return;
    latencies.push(ms);
    (latenciesBySecond[Math.floor((Date.now() - loadStarted) / 1000)] ??= []).push(ms);
  });
  const cpuAfter = cpuOf(processes);
  latencies.sort((a, b) => a - b);
  const measurement: Measurement = {
    target,
    requestsPerSec: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  console.log(`  measured ${target}: ${Math.round(measurement.requestsPerSec)} req/s`);
  // The shape of the distribution tells a stall (a long tail) from queueing (a wide body).
  const spread = (
    [
      ['p10', 0.1],
      ['p50', 0.5],
      ['p90', 0.9],
      ['p99', 0.99],
      ['p99.9', 0.999],
    ] as const
  )
    .map(([label, quantile]) => `${label} ${percentile(latencies, quantile).toFixed(1)}`)
    .join(', ');
  console.log(`    latency ms: ${spread}`);
  console.log(`    ${secondBySecondP99(latenciesBySecond)}`);
  printCpuPerRequest(processes, cpuBefore, cpuAfter, latencies.length);
  return measurement;
}

/**
 * The CPU time each watched process spent per answered request between two readings, and the
 * share of the machine's CPUs all of them used meanwhile.
 */
function printCpuPerRequest(
  processes: readonly WatchedProcess[],
  before: { atMs: number; cpuMs: number[] },
  after: { atMs: number; cpuMs: number[] },
  answered: number,
): void {
  const cpuPerRequest = processes
    .map((watched, index) => ({
      name: watched.name,
      us:
        answered > 0
          ? (((after.cpuMs[index] ?? 0) - (before.cpuMs[index] ?? 0)) * 1000) / answered
          : 0,
    }))
    .filter((entry) => entry.us > 0);
  if (cpuPerRequest.length === 0) return;
  const total = cpuPerRequest.reduce((sum, entry) => sum + entry.us, 0);
  const busyShare = (total * answered) / 1000 / ((after.atMs - before.atMs) * cpus().length);
  console.log(
    `    CPU per answered request: ${cpuPerRequest
      .map((entry) => `${entry.name} ${Math.round(entry.us)} µs`)
      .join(', ')}; total ${Math.round(total)} µs (${Math.round(busyShare * 100)} % of the CPUs)`,
  );
}

/** The open-loop load at BENCH_PACED_RATE: latency below saturation. */
async function measurePaced(
  target: string,
  url: string,
  env: BenchEnv,
  acceptedEventIds: string[],
  processes: readonly WatchedProcess[],
): Promise<Measurement> {
  const latencies: number[] = [];
  let non2xx = 0;
  const durationS = env.BENCH_DURATION_S / 2;
  const cpuBefore = cpuOf(processes);
  const result = await runPacedLoad({
    url,
    ratePerSec: env.BENCH_PACED_RATE,
    durationS,
    // As many as the saturating runs hold, so a backlog shows as latency, not as refusals.
    connections: env.BENCH_CONNECTIONS,
    headers: { 'content-type': 'application/json' },
    body: distinctBody,
    onResponse: (status, latencyMs, body) => {
      if (status < 200 || status >= 300) {
        non2xx += 1;
        return;
      }
      latencies.push(latencyMs);
      keepAccepted(acceptedEventIds, status, body);
    },
  });
  const cpuAfter = cpuOf(processes);
  latencies.sort((a, b) => a - b);
  console.log(
    `  measured ${target}: ${result.answered} of ${result.sent} answered ` +
      `(${Math.round(result.answered / durationS)} req/s), the generator ` +
      `at most ${result.maxLagMs.toFixed(1)} ms behind its schedule`,
  );
  printCpuPerRequest(processes, cpuBefore, cpuAfter, result.answered);
  return {
    target,
    requestsPerSec: result.answered / durationS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors,
    non2xx,
  };
}

/** A process whose CPU time is counted while a target is measured: one pid or several. */
interface WatchedProcess {
  name: string;
  pids: () => number[];
}

/** CPU time (ms) each watched process has used so far, and when that was read. */
function cpuOf(processes: readonly WatchedProcess[]): { atMs: number; cpuMs: number[] } {
  return {
    atMs: Date.now(),
    cpuMs: processes.map((watched) =>
      watched.pids().reduce((sum, pid) => sum + (cpuTimeMs(pid) ?? 0), 0),
    ),
  };
}

/** The machine's servers the bench shares, and the bench process itself (the load generator). */
const SHARED_PROCESSES: WatchedProcess[] = [
  { name: 'nats-server', pids: () => pidsOfCommand('nats-server') },
  { name: 'postgres', pids: () => pidsOfCommand('postgres') },
  { name: 'load generator', pids: () => [process.pid] },
];

/**
 * The p99 of each second of the load: a stall shows as a few seconds far above the others,
 * queueing for the CPUs as every second close to the run's own p99.
 */
function secondBySecondP99(latenciesBySecond: readonly (number[] | undefined)[]): string {
  const p99s = latenciesBySecond
    // The last second is cut short by the end of the load.
    .slice(0, -1)
    .map((second) =>
      percentile(
        [...(second ?? [])].sort((a, b) => a - b),
        0.99,
      ),
    )
    .filter((p99) => !Number.isNaN(p99));
  if (p99s.length === 0) return 'p99 per second: too short a load';
  const sorted = [...p99s].sort((a, b) => a - b);
  return (
    `p99 per second ms: median ${percentile(sorted, 0.5).toFixed(1)}, ` +
    `lowest ${(sorted[0] ?? Number.NaN).toFixed(1)}, ` +
    `highest ${(sorted[sorted.length - 1] ?? Number.NaN).toFixed(1)} ` +
    `(first second ${(p99s[0] ?? Number.NaN).toFixed(1)})`
  );
}

interface RunCheck {
  accepted: number;
  withRun: number;
  duplicated: number;
  succeeded: number;
  afterMs: number;
}

/** Waits until every accepted eventId has a run (or the deadline passes); counts duplicates. */
async function awaitRuns(
  databaseUrl: string,
  eventIds: string[],
  loadEnded: number,
): Promise<RunCheck> {
  const count = async () => {
    const [row] = await sql<{ with_run: string; total: string; succeeded: string }>(
      databaseUrl,
      `select count(distinct event_id) as with_run, count(*) as total,
              count(*) filter (where status = 'succeeded') as succeeded
         from workflow_runner.runs where event_id = any($1::uuid[])`,
      [eventIds],
    );
    return {
      withRun: Number(row?.with_run ?? 0),
      total: Number(row?.total ?? 0),
      succeeded: Number(row?.succeeded ?? 0),
    };
  };
  for (;;) {
    const counted = await count();
    const afterMs = Date.now() - loadEnded;
    if (counted.withRun === eventIds.length || afterMs > RUNS_DEADLINE_MS) {
      return {
        accepted: eventIds.length,
        withRun: counted.withRun,
        duplicated: counted.total - counted.withRun,
        succeeded: counted.succeeded,
        afterMs,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function printTable(rows: readonly Measurement[]): void {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx'];
  const cells = rows.map((row) => [
    row.target,
    Math.round(row.requestsPerSec).toString(),
    row.p50Ms.toFixed(2),
    row.p99Ms.toFixed(2),
    row.errors.toString(),
    row.non2xx.toString(),
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((line) => line[column]?.length ?? 0)),
  );
  const format = (line: readonly string[]) =>
    line
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  console.log(`\n${format(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  for (const line of cells) console.log(format(line));
}

function reportTargets(platform: Measurement, baseline: Measurement, runs: RunCheck): boolean {
  const ratio = platform.requestsPerSec / baseline.requestsPerSec;
  const verdict = (holds: boolean) => (holds ? 'holds' : 'MISSED');
  const checks = [
    [
      `throughput / baseline: ${ratio.toFixed(2)} (target ≥ ${MIN_THROUGHPUT_RATIO})`,
      ratio >= MIN_THROUGHPUT_RATIO,
    ],
    [
      `p99: ${platform.p99Ms.toFixed(2)} ms (target ≤ ${MAX_P99_MS} ms)`,
      platform.p99Ms <= MAX_P99_MS,
    ],
    [
      `errors + non-2xx: ${platform.errors + platform.non2xx} (target 0)`,
      platform.errors + platform.non2xx === 0,
    ],
    [
      `accepted requests with their run ${runs.afterMs} ms after the load: ${runs.withRun} of ${runs.accepted} ` +
        `(${runs.succeeded} succeeded; target all within ${RUNS_DEADLINE_MS / 1000} s)`,
      runs.withRun === runs.accepted,
    ],
    [`requests with more than one run: ${runs.duplicated} (target 0)`, runs.duplicated === 0],
  ] as const;
  console.log('');
  for (const [line, holds] of checks) console.log(`${line}: ${verdict(holds)}`);
  return checks.every(([, holds]) => holds);
}

runBench(main);
