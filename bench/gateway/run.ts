// `npm run bench:gateway`: GET /me through the real gateway and storage processes, against two
// baselines on the same machine in the same run — a bare HTTP server, and a bare HTTP server
// that forwards each request over one NATS request/reply. Target (issue 19): the gateway's own
// CPU per request at most twice the bare forwarder's, with no errors. Throughput and latency are
// printed beside it for reading: on a shared machine they measure the neighbours too.
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { type z } from 'zod';
import { createBusSigner, createBusVerifier, generateBusKeySet, mintSessionToken } from '@wap/auth';
import { requestDigest } from '@wap/bus-protocol';
import {
  cpuTimeMs,
  createProcessGroup,
  serviceLauncher,
  type BenchProcess,
  type ProcessGroup,
} from '../shared/processes';
import { removeNamespaceFromNats } from '@wap/testing';
import {
  buildBundles,
  createDatabase,
  percentile,
  repoRoot,
  runAutocannon,
  benchEnvSchema,
  runBench,
  type OnCleanup,
} from '../shared/harness';

const BenchEnv = benchEnvSchema(20);
type BenchEnv = z.infer<typeof BenchEnv>;

/** The gateway's CPU per request may be at most this multiple of the bare forwarder's. */
const MAX_CPU_RATIO = 2;

const benchDir = __dirname;

interface Measurement {
  target: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  /** CPU the target's own processes spent per response, in µs (NATS server and client excluded). */
  cpuUsPerRequest: number | undefined;
  /** The same, per process, to show where the CPU goes. */
  cpuUsPerRequestByProcess: Record<string, number>;
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const env = BenchEnv.parse(process.env);
  const group = createProcessGroup();
  process.once('exit', () => group.killAllNow());

  buildBundles(['gateway', 'storage']);
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  onCleanup(() => removeNamespaceFromNats(env.NATS_URL, namespace));
  const databaseUrl = await createDatabase(env.DATABASE_URL, namespace, onCleanup);
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
  const cookie = `session=${await mintSessionToken({
    secret: sessionSecret,
    sub: 'bench|bench@example.com',
    email: 'bench@example.com',
    name: 'Bench',
    expiresInSec: 3600,
  })}`;
  // The first request creates the user in storage; every later one is the warm path.
  const warm = await fetch(`${runtime.url}/me`, { headers: { cookie } });
  const meBody = await warm.text();
  if (warm.status !== 200) throw new Error(`warm-up GET /me answered ${warm.status}: ${meBody}`);

  const baselines = await startBaselines(group, { natsUrl: env.NATS_URL, namespace, meBody });

  console.log(
    `\nGET /me, ${env.BENCH_CONNECTIONS} connections, ${env.BENCH_DURATION_S} s each, ` +
      `${cpus().length} CPUs, Node ${process.version}\n`,
  );
  const gateway = await measure('gateway → storage', runtime, cookie, env);
  const nats = await measure('NATS-forwarding baseline', baselines.nats, cookie, env);
  const bare = await measure('bare node:http baseline', baselines.http, cookie, env);

  printTable([gateway, nats, bare]);
  await printAssertionCost(meBody);
  const targetsHold = reportTargets(gateway, nats, bare);
  if (!targetsHold) process.exitCode = 1;
}

/** Signings and verifications timed for the figure below. */
const ASSERTION_ROUNDS = 5_000;

/**
 * What signed actors (decisions 112 and 115) cost each hop of a request: the gateway signs one assertion
 * (with the person) per forwarded request, the serving service verifies it; timed in this process
 * on a forwarded `GET /me` of the size the gateway sends, digest included.
 */
async function printAssertionCost(meBody: string): Promise<void> {
  const keys = generateBusKeySet('bench');
  const signer = await createBusSigner(keys.signingKeys.gateway);
  const verifier = await createBusVerifier(keys.trustedKeys, { now: () => Date.now() });
  const data = new TextEncoder().encode(
    JSON.stringify({
      requestId: randomBytes(8).toString('hex'),
      params: {},
      query: {},
      headers: {},
      body: null,
    }),
  );
  const user = {
    userId: '6f0e7f3c-3a55-4f7b-9d6c-2b1e0f4a5b6c',
    subject: 'bench|bench@example.com',
    email: 'bench@example.com',
    name: 'Bench',
    platformAdmin: false,
  };
  const tokens: string[] = [];
  const signStarted = process.hrtime.bigint();
  for (let round = 0; round < ASSERTION_ROUNDS; round += 1) {
    tokens.push(await signer.sign({ audience: 'storage', digest: requestDigest(data, {}), user }));
  }
  const signUs = Number(process.hrtime.bigint() - signStarted) / 1000 / ASSERTION_ROUNDS;
  const verifyStarted = process.hrtime.bigint();
  for (const token of tokens) {
    const verified = await verifier.verify(token, 'storage');
    if (verified.digest !== requestDigest(data, {})) throw new Error('digest mismatch');
  }
  const verifyUs = Number(process.hrtime.bigint() - verifyStarted) / 1000 / ASSERTION_ROUNDS;
  console.log(
    `
signed actors, per forwarded request (${ASSERTION_ROUNDS} rounds, ${meBody.length}-byte answer ` +
      `not included): sign ${signUs.toFixed(1)} µs in the gateway, verify ${verifyUs.toFixed(1)} µs ` +
      `in the service, ${(signUs + verifyUs).toFixed(1)} µs in all`,
  );
}

/** An HTTP server under test, and the processes whose CPU serves its requests. */
interface Target {
  url: string;
  processes: readonly BenchProcess[];
}

/** Storage, then the gateway, each its own `node` process on its built bundle. */
async function startDistributedRuntime(
  group: ProcessGroup,
  options: {
    natsUrl: string;
    databaseUrl: string;
    namespace: string;
    sessionSecret: string;
    cpuProfileDir?: string;
  },
): Promise<Target> {
  const launch = serviceLauncher(group, { repoRoot, ...options });
  const storage = await launch.service('storage', 'storage', {
    DATABASE_URL: options.databaseUrl,
  });
  const gateway = await launch.gateway(options.sessionSecret);
  return { url: gateway.url, processes: [gateway.process, storage] };
}

/** The two baselines, each in processes of their own, answering the body GET /me returned. */
async function startBaselines(
  group: ProcessGroup,
  options: { natsUrl: string; namespace: string; meBody: string },
): Promise<{ http: Target; nats: Target }> {
  const startScript = (name: string, script: string, env: Record<string, string>) =>
    group.start(name, ['--import', 'tsx', join(benchDir, script)], {
      BENCH_RESPONSE_BODY: options.meBody,
      ...env,
    });
  const portOf = async (child: BenchProcess) => (await child.firstMessage<{ port: number }>()).port;

  const bare = startScript('http-baseline', 'http-baseline.ts', {});
  const natsEnv = { NATS_URL: options.natsUrl, BENCH_SUBJECT: `${options.namespace}.bench.me` };
  const responder = startScript('nats-responder', 'nats-responder.ts', natsEnv);
  await responder.firstMessage();
  const forwarder = startScript('nats-forwarder', 'nats-forwarder.ts', natsEnv);
  return {
    http: { url: `http://127.0.0.1:${await portOf(bare)}`, processes: [bare] },
    nats: {
      url: `http://127.0.0.1:${await portOf(forwarder)}`,
      processes: [forwarder, responder],
    },
  };
}

/**
 * One warm-up run (JIT, connection pools, caches), then the measured run. Latencies are kept
 * from autocannon's per-response timings: its histogram has 1 ms resolution, too coarse for
 * a 1 ms target. Like autocannon, only 2xx responses count towards latency.
 */
async function measure(
  name: string,
  target: Target,
  cookie: string,
  env: BenchEnv,
): Promise<Measurement> {
  const common = {
    url: `${target.url}/me`,
    connections: env.BENCH_CONNECTIONS,
    headers: { cookie },
  };
  await runAutocannon({ ...common, duration: Math.min(3, Math.max(1, env.BENCH_DURATION_S / 5)) });
  const latencies: number[] = [];
  const cpuBefore = target.processes.map((child) => cpuTimeMs(child.pid));
  const result = await runAutocannon(
    { ...common, duration: env.BENCH_DURATION_S },
    (status, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    },
  );
  const cpuAfter = target.processes.map((child) => cpuTimeMs(child.pid));
  const cpuUsPerRequestByProcess: Record<string, number> = {};
  target.processes.forEach((child, index) => {
    const before = cpuBefore[index];
    const after = cpuAfter[index];
    if (before !== undefined && after !== undefined && result.requests.total > 0) {
      cpuUsPerRequestByProcess[child.name] = ((after - before) * 1000) / result.requests.total;
    }
  });
  const perProcess = Object.values(cpuUsPerRequestByProcess);
  latencies.sort((a, b) => a - b);
  const measurement: Measurement = {
    target: name,
    requestsPerSec: result.requests.average,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: result.errors,
    non2xx: result.non2xx,
    cpuUsPerRequest:
      perProcess.length === target.processes.length
        ? perProcess.reduce((sum, used) => sum + used, 0)
        : undefined,
    cpuUsPerRequestByProcess,
  };
  console.log(`  measured ${name}: ${Math.round(measurement.requestsPerSec)} req/s`);
  return measurement;
}

function printTable(rows: readonly Measurement[]): void {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'non-2xx', 'CPU µs/req'];
  const cells = rows.map((row) => [
    row.target,
    Math.round(row.requestsPerSec).toString(),
    row.p50Ms.toFixed(2),
    row.p99Ms.toFixed(2),
    row.errors.toString(),
    row.non2xx.toString(),
    row.cpuUsPerRequest === undefined ? '-' : Math.round(row.cpuUsPerRequest).toString(),
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
  console.log(
    "\nCPU µs/req counts the target's own processes; NATS, PostgreSQL and the load generator " +
      'are excluded. Per process:',
  );
  for (const row of rows) {
    const parts = Object.entries(row.cpuUsPerRequestByProcess).map(
      ([name, used]) => `${name} ${Math.round(used)}`,
    );
    console.log(`  ${row.target}: ${parts.join(', ') || '-'}`);
  }
}

/**
 * Each process's CPU per request beside its counterpart in the NATS-forwarding baseline (the
 * gateway beside the bare forwarder, storage beside the responder), then the target and whether
 * it holds; a gateway run with failures never passes.
 */
function reportTargets(gateway: Measurement, nats: Measurement, bare: Measurement): boolean {
  const used = (row: Measurement, name: string) => row.cpuUsPerRequestByProcess[name];
  const pairs = [
    ['gateway', 'nats-forwarder'],
    ['storage', 'nats-responder'],
  ] as const;
  console.log('\nCPU µs per request, each process beside its counterpart in the bare baselines:');
  for (const [own, counterpart] of pairs) {
    const ownUs = used(gateway, own);
    const baseUs = used(nats, counterpart);
    const times = ownUs !== undefined && baseUs ? ` (×${(ownUs / baseUs).toFixed(2)})` : '';
    console.log(`  ${own.padEnd(8)} ${fmtUs(ownUs)}  ${counterpart} ${fmtUs(baseUs)}${times}`);
  }
  console.log(`  bare node:http server ${fmtUs(used(bare, 'http-baseline'))}`);

  const gatewayUs = used(gateway, 'gateway');
  const forwarderUs = used(nats, 'nats-forwarder');
  const ratio =
    gatewayUs !== undefined && forwarderUs ? gatewayUs / forwarderUs : Number.POSITIVE_INFINITY;
  const cpuHolds = ratio <= MAX_CPU_RATIO;
  const clean = gateway.errors === 0 && gateway.non2xx === 0;
  const verdict = (holds: boolean) => (holds ? 'holds' : 'MISSED');
  console.log(
    `\ngateway's own CPU per GET /me / the bare forwarder's: ${ratio.toFixed(2)} ` +
      `(target ≤ ${MAX_CPU_RATIO}): ${verdict(cpuHolds)}`,
  );
  console.log(
    `errors + non-2xx through the gateway: ${gateway.errors + gateway.non2xx} (target 0): ` +
      verdict(clean),
  );
  console.log(
    `for reading: throughput ${(gateway.requestsPerSec / nats.requestsPerSec).toFixed(2)} of the ` +
      `NATS-forwarding baseline's, p50 ${(gateway.p50Ms - nats.p50Ms).toFixed(2)} ms above it`,
  );
  return cpuHolds && clean;
}

function fmtUs(us: number | undefined): string {
  return us === undefined ? '-' : `${Math.round(us)} µs`;
}

runBench(main);
