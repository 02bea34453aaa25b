// `npm run bench:webhooks`: POST /webhooks/{id} on a live workflow of one free step, with a
// distinct body per request, through three entries in one run: a bare node:http server that
// parses the JSON and publishes it once to JetStream, awaiting the ack (the baseline); the direct
// entry, webhook-ingest's own port on both of its replicas (WEBHOOK_PORT, as a load balancer
// would spread them); and the gateway entry, which forwards to them over the bus. Storage and
// the workflow runner run beside them, each its own process. Each entry is first saturated
// (autocannon) and then paced open-loop at a tenth of the baseline's saturated throughput of the
// same run. Targets (issues 19, 29): direct ≥ 0.5 and gateway ≥ 0.5 of the baseline's saturated
// throughput; paced, the direct entry's p99 ≤ 50 ms and its CPU per request ≤ 3 × the
// baseline's; 0 errors; every accepted request has exactly one run within 10 s after the load.
// Then the embedded runtime (`npm start`, one process) is measured the same way, for the
// README's limits.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import type { z } from 'zod';
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
  freePort,
  serviceLauncher,
  pidsOfCommand,
  type ProcessGroup,
} from '../shared/processes';

const BenchEnv = benchEnvSchema(30);
type BenchEnv = z.infer<typeof BenchEnv>;

/** Saturated throughput of the direct entry, at least, as a share of the baseline's. */
const MIN_DIRECT_RATIO = 0.5;
/** Saturated throughput of the gateway entry, at least, as a share of the baseline's (issue 29). */
const MIN_GATEWAY_RATIO = 0.5;
/** Paced loads run at this share of the baseline's saturated throughput. */
const PACED_SHARE = 0.1;
/** Paced through the direct entry, p99 at most this. */
const MAX_PACED_P99_MS = 50;
/** Paced through the direct entry, CPU per request at most this multiple of the baseline's. */
const MAX_PACED_CPU_RATIO = 3;
/** Every accepted request must have its run this long after the load ends. */
const RUNS_DEADLINE_MS = 10_000;

interface Measurement {
  target: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** CPU µs per answered request of each watched process. */
  cpuUsByProcess: Record<string, number>;
  /** Their sum without the load generator: what serving one request cost the machine. */
  serverCpuUs: number;
}

/** An entry under test: where requests go, which processes serve them, whether runs follow. */
interface Entry {
  name: string;
  urls: string[];
  processes: readonly WatchedProcess[];
  startsRuns: boolean;
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  const group = createProcessGroup();
  process.once('exit', () => group.killAllNow());

  buildBundles(['gateway', 'storage', 'workflow-runner', 'webhook-ingest', 'embedded']);
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  onCleanup(() => removeNamespaceFromNats(env.NATS_URL, namespace));
  const databaseUrl = await createDatabase(env.DATABASE_URL, namespace, onCleanup);
  // The embedded runtime's state, removed once it stopped.
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-webhooks-embedded-'));
  onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
  // Cleanups run in reverse: the processes stop before their database and streams go.
  onCleanup(() => group.stopAll());
  const sessionSecret = randomBytes(32).toString('hex');
  const runtime = await startDistributedRuntime(group, {
    natsUrl: env.NATS_URL,
    databaseUrl,
    namespace,
    sessionSecret,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const webhookPath = await createLiveWorkflow(runtime.gatewayUrl, sessionSecret);
  const baselineServer = await startBaseline(group, env.NATS_URL, namespace);

  const platformProcesses = [...runtime.processes, ...SHARED_PROCESSES];
  const baseline: Entry = {
    name: 'JetStream baseline',
    urls: [`${baselineServer.url}/hook`],
    processes: [{ name: 'baseline', pids: () => [baselineServer.pid] }, ...SHARED_PROCESSES],
    startsRuns: false,
  };
  const direct: Entry = {
    name: 'direct (webhook-ingest ×2)',
    urls: runtime.directUrls.map((url) => `${url}${webhookPath}`),
    processes: platformProcesses,
    startsRuns: true,
  };
  const gateway: Entry = {
    name: 'gateway → webhook-ingest ×2',
    urls: [`${runtime.gatewayUrl}${webhookPath}`],
    processes: platformProcesses,
    startsRuns: true,
  };

  console.log(
    `\nPOST /webhooks/{id}, distinct bodies, ${env.BENCH_CONNECTIONS} connections, ` +
      `${env.BENCH_DURATION_S} s saturated and ${env.BENCH_DURATION_S / 2} s paced each, ` +
      `${cpus().length} CPUs, Node ${process.version}\n`,
  );
  const runChecks: { label: string; check: RunCheck }[] = [];
  const saturated: Measurement[] = [];
  for (const entry of [baseline, direct, gateway]) {
    const accepted: string[] = [];
    saturated.push(await measure(entry, env, accepted));
    if (entry.startsRuns) {
      const check = await awaitRuns(databaseUrl, accepted, Date.now());
      printRunCheck(check);
      runChecks.push({ label: `${entry.name}, saturated`, check });
      await awaitRunsEnded(databaseUrl);
    }
  }
  const pacedRate = Math.max(1, Math.round((saturated[0]?.requestsPerSec ?? 0) * PACED_SHARE));
  console.log(
    `\nPaced: an open-loop load of ${pacedRate} req/s (a tenth of the baseline's saturated ` +
      `throughput) for ${env.BENCH_DURATION_S / 2} s each, latency from when each request was due\n`,
  );
  const paced: Measurement[] = [];
  for (const entry of [baseline, direct, gateway]) {
    const accepted: string[] = [];
    paced.push(await measurePaced(entry, env, pacedRate, accepted));
    if (entry.startsRuns) {
      const check = await awaitRuns(databaseUrl, accepted, Date.now());
      printRunCheck(check);
      runChecks.push({ label: `${entry.name}, paced`, check });
      await awaitRunsEnded(databaseUrl);
    }
  }

  // The embedded runtime (`npm start`) last, alone on the machine but for the idle services.
  const embeddedLaunch = serviceLauncher(group, {
    repoRoot,
    natsUrl: env.NATS_URL,
    namespace,
    cpuProfileDir: env.BENCH_CPU_PROF_DIR,
  });
  const embeddedRuntime = await embeddedLaunch.embedded(sessionSecret, dataDir, {
    WEBHOOK_RATE_LIMIT_PER_SECOND: '1000000',
    WEBHOOK_RATE_LIMIT_BURST: '1000000',
  });
  const embedded: Entry = {
    name: 'embedded (npm start)',
    urls: [`${embeddedRuntime.url}${await createLiveWorkflow(embeddedRuntime.url, sessionSecret)}`],
    processes: [{ name: 'embedded', pids: () => [embeddedRuntime.process.pid] }],
    // Its runs are in its own PGlite database, which only it can open.
    startsRuns: false,
  };
  console.log('');
  const embeddedSaturated = await measure(embedded, env, []);
  const embeddedPaced = await measurePaced(embedded, env, pacedRate, []);

  console.log('\nSaturated (autocannon)');
  printTable([...saturated, embeddedSaturated]);
  console.log(`\nPaced at ${pacedRate} req/s`);
  printTable([...paced, embeddedPaced]);
  const [baselineSaturated, directSaturated, gatewaySaturated] = saturated;
  const [baselinePaced, directPaced, gatewayPaced] = paced;
  if (
    !baselineSaturated ||
    !directSaturated ||
    !gatewaySaturated ||
    !baselinePaced ||
    !directPaced ||
    !gatewayPaced
  ) {
    throw new Error('a measurement is missing');
  }
  const holds = reportTargets({
    baselineSaturated,
    directSaturated,
    gatewaySaturated,
    baselinePaced,
    directPaced,
    gatewayPaced,
    runChecks,
  });
  const embeddedRatio = embeddedSaturated.requestsPerSec / (baselineSaturated.requestsPerSec || 1);
  console.log(
    `embedded entry saturated: ${Math.round(embeddedSaturated.requestsPerSec)} req/s, ` +
      `${embeddedRatio.toFixed(2)} of the baseline; paced p99 ${embeddedPaced.p99Ms.toFixed(2)} ms, ` +
      `${embeddedSaturated.errors + embeddedSaturated.non2xx + embeddedPaced.errors + embeddedPaced.non2xx} errors ` +
      '(no target: the README states its limits from these figures)',
  );
  if (!holds) process.exitCode = 1;
}

/**
 * Storage, the runner, two webhook-ingest replicas, each with its direct door on a port of its
 * own, and the gateway; the entries' URLs.
 */
async function startDistributedRuntime(
  group: ProcessGroup,
  options: {
    natsUrl: string;
    databaseUrl: string;
    namespace: string;
    sessionSecret: string;
    cpuProfileDir?: string;
  },
): Promise<{ gatewayUrl: string; directUrls: string[]; processes: WatchedProcess[] }> {
  const processes: WatchedProcess[] = [];
  const launch = serviceLauncher(group, { repoRoot, ...options });
  const service = async (name: string, app: string, env: Record<string, string> = {}) => {
    const child = await launch.service(name, app, { DATABASE_URL: options.databaseUrl, ...env });
    processes.push({ name, pids: () => [child.pid] });
  };
  await service('storage', 'storage');
  // As deploy/k8s/base/workflow-runner.yaml runs it.
  await service('workflow-runner', 'workflow-runner', {
    RUN_CONCURRENCY: '256',
    NODE_OPTIONS: '--max-semi-space-size=64',
  });
  // The bench measures throughput: the per-address rate limit must not be what it finds.
  const ingestEnv = {
    WEBHOOK_RATE_LIMIT_PER_SECOND: '1000000',
    WEBHOOK_RATE_LIMIT_BURST: '1000000',
  };
  const directUrls: string[] = [];
  for (const name of ['webhook-ingest-1', 'webhook-ingest-2']) {
    const port = await freePort();
    await service(name, 'webhook-ingest', { ...ingestEnv, WEBHOOK_PORT: String(port) });
    directUrls.push(`http://127.0.0.1:${port}`);
  }

  const gateway = await launch.gateway(options.sessionSecret);
  processes.push({ name: 'gateway', pids: () => [gateway.process.pid] });
  return { gatewayUrl: gateway.url, directUrls, processes };
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
 * A warm-up run, then the measured run, both saturating (autocannon, closed loop). Every request
 * carries a body of its own (no two are identical, so none is skipped as a duplicate); the
 * eventIds of accepted requests are kept.
 */
async function measure(
  entry: Entry,
  env: BenchEnv,
  acceptedEventIds: string[],
): Promise<Measurement> {
  const latencies: number[] = [];
  const options = (duration: number) =>
    ({
      // autocannon spreads its connections over several URLs; its types admit only one.
      url: entry.urls as unknown as string,
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
    }) satisfies autocannon.Options;
  await runAutocannon(options(Math.min(3, Math.max(1, env.BENCH_DURATION_S / 5))));
  const cpuBefore = cpuOf(entry.processes);
  const loadStarted = Date.now();
  const latenciesBySecond: number[][] = [];
  const result = await runAutocannon(options(env.BENCH_DURATION_S), (status, ms) => {
    if (status < 200 || status >= 300) return;
    latencies.push(ms);
    (latenciesBySecond[Math.floor((Date.now() - loadStarted) / 1000)] ??= []).push(ms);
  });
  const cpuAfter = cpuOf(entry.processes);
  latencies.sort((a, b) => a - b);
  console.log(`  ${entry.name}, saturated: ${Math.round(result.requests.average)} req/s`);
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
  const cpu = cpuPerRequest(entry.processes, cpuBefore, cpuAfter, result.requests.total);
  return {
    target: entry.name,
    requestsPerSec: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    ...cpu,
  };
}

/**
 * The CPU time each watched process spent per answered request between two readings (printed,
 * with the share of the machine's CPUs they used meanwhile), and the sum of all but the load
 * generator.
 */
function cpuPerRequest(
  processes: readonly WatchedProcess[],
  before: CpuReading,
  after: CpuReading,
  answered: number,
): Pick<Measurement, 'cpuUsByProcess' | 'serverCpuUs'> {
  const cpuUsByProcess: Record<string, number> = {};
  processes.forEach((watched, index) => {
    const usedMs = cpuUsedMs(before, after, index);
    cpuUsByProcess[watched.name] = answered > 0 ? (usedMs * 1000) / answered : 0;
  });
  const entries = Object.entries(cpuUsByProcess);
  const total = entries.reduce((sum, [, us]) => sum + us, 0);
  const serverCpuUs = entries
    .filter(([name]) => name !== LOAD_GENERATOR)
    .reduce((sum, [, us]) => sum + us, 0);
  const busyShare = (total * answered) / 1000 / ((after.atMs - before.atMs) * cpus().length);
  console.log(
    `    CPU per answered request: ${entries
      .map(([name, us]) => `${name} ${Math.round(us)} µs`)
      .join(', ')}; serving ${Math.round(serverCpuUs)} µs, with the load generator ` +
      `${Math.round(total)} µs (${Math.round(busyShare * 100)} % of the CPUs)`,
  );
  return { cpuUsByProcess, serverCpuUs };
}

/** An open-loop load at `ratePerSec`: latency below saturation, counted from when each was due. */
async function measurePaced(
  entry: Entry,
  env: BenchEnv,
  ratePerSec: number,
  acceptedEventIds: string[],
): Promise<Measurement> {
  const latencies: number[] = [];
  let non2xx = 0;
  const durationS = env.BENCH_DURATION_S / 2;
  const cpuBefore = cpuOf(entry.processes);
  const result = await runPacedLoad({
    urls: entry.urls,
    ratePerSec,
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
  const cpuAfter = cpuOf(entry.processes);
  latencies.sort((a, b) => a - b);
  console.log(
    `  ${entry.name}, paced: ${result.answered} of ${result.sent} answered ` +
      `(${Math.round(result.answered / durationS)} req/s), the generator ` +
      `at most ${result.maxLagMs.toFixed(1)} ms behind its schedule`,
  );
  const cpu = cpuPerRequest(entry.processes, cpuBefore, cpuAfter, result.answered);
  return {
    target: entry.name,
    requestsPerSec: result.answered / durationS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors,
    non2xx,
    ...cpu,
  };
}

/** A process whose CPU time is counted while a target is measured: one pid or several. */
interface WatchedProcess {
  name: string;
  pids: () => number[];
}

/** CPU time (ms) each watched process has used so far, and when that was read. */
function cpuOf(processes: readonly WatchedProcess[]): CpuReading {
  return {
    atMs: Date.now(),
    cpuMs: processes.map(
      (watched) => new Map(watched.pids().map((pid) => [pid, cpuTimeMs(pid) ?? 0] as const)),
    ),
  };
}

/** CPU time (ms) used so far by each pid of each watched process. */
interface CpuReading {
  atMs: number;
  cpuMs: ReadonlyMap<number, number>[];
}

/**
 * CPU (ms) a watched process used between two readings. PostgreSQL's backends come and go with
 * their connections: one that ended meanwhile took its time with it (so it is left out), one
 * that started meanwhile used all of its time within the window.
 */
function cpuUsedMs(before: CpuReading, after: CpuReading, index: number): number {
  let used = 0;
  for (const [pid, ms] of after.cpuMs[index] ?? [])
    used += ms - (before.cpuMs[index]?.get(pid) ?? 0);
  return used;
}

const LOAD_GENERATOR = 'load generator';

/**
 * The machine's servers the bench shares, and the bench process itself (the load generator).
 * Other work on them (another bench, tests) counts here too: run the bench on a quiet machine.
 */
const SHARED_PROCESSES: WatchedProcess[] = [
  { name: 'nats-server', pids: () => pidsOfCommand('nats-server') },
  { name: 'postgres', pids: () => pidsOfCommand('postgres') },
  { name: LOAD_GENERATOR, pids: () => [process.pid] },
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

/** Longest wait for the runs of one load to end before the next load starts. */
const RUNS_END_TIMEOUT_MS = 120_000;

/**
 * Waits until no run is queued or running, so that one load's runs, still executing after
 * their requests were answered, do not take the CPUs from the next load.
 */
async function awaitRunsEnded(databaseUrl: string): Promise<void> {
  const started = Date.now();
  for (;;) {
    const [row] = await sql<{ open: string }>(
      databaseUrl,
      `select count(*) as open from workflow_runner.runs where status in ('queued', 'running')`,
    );
    const open = Number(row?.open ?? 0);
    if (open === 0 || Date.now() - started > RUNS_END_TIMEOUT_MS) {
      console.log(`    runs still open ${Date.now() - started} ms later: ${open}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function printRunCheck(check: RunCheck): void {
  console.log(
    `    accepted requests with their run ${check.afterMs} ms after the load: ` +
      `${check.withRun} of ${check.accepted} (${check.succeeded} runs succeeded), ` +
      `${check.duplicated} more than one`,
  );
}

function printTable(rows: readonly Measurement[]): void {
  const header = ['entry', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'CPU µs/req'];
  const cells = rows.map((row) => [
    row.target,
    Math.round(row.requestsPerSec).toString(),
    row.p50Ms.toFixed(2),
    row.p99Ms.toFixed(2),
    row.errors.toString(),
    row.non2xx.toString(),
    Math.round(row.serverCpuUs).toString(),
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
  console.log(`${format(header)}\n${widths.map((width) => '-'.repeat(width)).join('  ')}`);
  for (const line of cells) console.log(format(line));
  console.log(
    '(CPU µs/req: every serving process, nats-server and postgres included, the load generator not)',
  );
}

function reportTargets(run: {
  baselineSaturated: Measurement;
  directSaturated: Measurement;
  gatewaySaturated: Measurement;
  baselinePaced: Measurement;
  directPaced: Measurement;
  gatewayPaced: Measurement;
  runChecks: readonly { label: string; check: RunCheck }[];
}): boolean {
  const baselineRate = run.baselineSaturated.requestsPerSec;
  const directRatio = run.directSaturated.requestsPerSec / baselineRate;
  const gatewayRatio = run.gatewaySaturated.requestsPerSec / baselineRate;
  const cpuRatio = run.directPaced.serverCpuUs / run.baselinePaced.serverCpuUs;
  const failures = [
    run.directSaturated,
    run.gatewaySaturated,
    run.directPaced,
    run.gatewayPaced,
  ].reduce((sum, row) => sum + row.errors + row.non2xx, 0);
  const checks: [string, boolean][] = [
    [
      `direct entry saturated / baseline: ${directRatio.toFixed(2)} (target ≥ ${MIN_DIRECT_RATIO})`,
      directRatio >= MIN_DIRECT_RATIO,
    ],
    [
      `gateway entry saturated / baseline: ${gatewayRatio.toFixed(2)} (target ≥ ${MIN_GATEWAY_RATIO})`,
      gatewayRatio >= MIN_GATEWAY_RATIO,
    ],
    [
      `direct entry paced p99: ${run.directPaced.p99Ms.toFixed(2)} ms (target ≤ ${MAX_PACED_P99_MS} ms)`,
      run.directPaced.p99Ms <= MAX_PACED_P99_MS,
    ],
    [
      `direct entry paced CPU per request / baseline's: ${cpuRatio.toFixed(2)} ` +
        `(${Math.round(run.directPaced.serverCpuUs)} / ${Math.round(run.baselinePaced.serverCpuUs)} µs; ` +
        `target ≤ ${MAX_PACED_CPU_RATIO})`,
      cpuRatio <= MAX_PACED_CPU_RATIO,
    ],
    [`errors + non-2xx through both entries: ${failures} (target 0)`, failures === 0],
  ];
  for (const { label, check } of run.runChecks) {
    checks.push([
      `${label}: ${check.withRun} of ${check.accepted} accepted requests with a run, ` +
        `${check.duplicated} with more than one, ${check.afterMs} ms after the load ` +
        `(target all, exactly one, within ${RUNS_DEADLINE_MS / 1000} s)`,
      check.withRun === check.accepted && check.duplicated === 0,
    ]);
  }
  console.log('');
  for (const [line, holds] of checks) console.log(`${line}: ${holds ? 'holds' : 'MISSED'}`);
  return checks.every(([, holds]) => holds);
}

runBench(main);
