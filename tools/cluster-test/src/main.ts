// `npm run test:cluster`: the distributed runtime as separate processes, two replicas of every
// service, on a three-node JetStream cluster (authentication on, every stream and bucket at three
// replicas) and a PostgreSQL cluster of its own; under a bounded mixed load it kills one replica
// of each service with SIGKILL (and starts it again), kills one NATS node and then the node that
// leads the webhook stream with SIGKILL, restarts every NATS node, then restarts PostgreSQL after
// an immediate (crash) stop. It prints and checks what was acknowledged, lost and duplicated, the
// failures during and after each recovery, and the seconds to recover. Exits 1 when a target
// misses (decisions 103, 104 and 114).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateCredentialKey, mintSessionToken } from '@wap/auth';
import { WEBHOOK_EVENTS_STREAM } from '@wap/contracts';
import { createBusCredentials } from '@wap/service-runtime';
import { startChatCompletionsProvider, startOwnNats, textReply } from '@wap/testing';
import { streamLeader } from './stream-leader';
import { checkAcknowledged, type Findings } from './final-checks';
import { ownPostgres } from './infrastructure';
import { gatewayClient, mixedLoad, type GatewayCall, type Outcome } from './mixed-load';
import { APPS, createReplicas, type Replica } from './replicas';
import { runOperations, startRunReceiver, type RunOperationFindings } from './run-operations';

const REPO_ROOT = join(__dirname, '../../..');
const SESSION_SECRET = randomBytes(32).toString('hex');
/** Target: every request succeeds again within this long after the faulty process returns. */
const RECOVERY_TARGET_MS = 10_000;
/**
 * How long a recovery is waited for before the test gives up on it (a miss either way). Long, so
 * that on a machine whose CPUs are busy elsewhere the next fault does not hit a replica still
 * starting, and the figure printed is the real one.
 */
const RECOVERY_GIVE_UP_MS = 120_000;
/** How long a killed or stopped process stays away while the load goes on. */
const OUTAGE_MS = 2_000;
/** Load with nothing failing before the first fault, between faults and after the last one. */
const STEADY_MS = 4_000;

interface Phase {
  name: string;
  faultAt: number;
  /** When the process was back: the replica spawned again, the server accepting connections. */
  returnedAt: number;
  /** When every replica's /readyz first answered 200 again. */
  readyAt?: number;
  /** When every replica was ready and a probe through each gateway succeeded; unset: never. */
  recoveredAt?: number;
  /** When the test stopped waiting for the recovery (or saw it). */
  waitEndedAt?: number;
}

function buildBundles(): void {
  const { status } = spawnSync(
    'npx',
    ['nx', 'run-many', '-t', 'build', '-p', ...APPS, '--outputStyle=static'],
    {
      cwd: REPO_ROOT,
      stdio: 'inherit',
      env: { ...process.env, NX_DAEMON: 'false', NX_TUI: 'false', NX_NO_CLOUD: 'true' },
    },
  );
  if (status !== 0) throw new Error(`building the services failed (exit ${status})`);
}

async function allReady(replicas: readonly Replica[]): Promise<boolean> {
  return (await Promise.all(replicas.map((replica) => replica.isReady()))).every(Boolean);
}

async function waitUntilReady(replicas: readonly Replica[], timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await allReady(replicas))) {
    const exited = replicas.find((replica) => replica.unexpectedExits.length > 0);
    if (exited) throw new Error(`${exited.name} exited:\n${exited.logTail(30)}`);
    if (Date.now() > deadline) {
      const waiting = [];
      for (const replica of replicas) if (!(await replica.isReady())) waiting.push(replica.name);
      throw new Error(`not ready within ${timeoutMs} ms: ${waiting.join(', ')}`);
    }
    await sleep(200);
  }
}

async function main(): Promise<boolean> {
  buildBundles();
  const dir = mkdtempSync(join(tmpdir(), 'wap-cluster-'));
  const logDir = join(dir, 'logs');
  mkdirSync(logDir);
  const cleanups: (() => Promise<void> | void)[] = [];
  let passed = false;
  try {
    const namespace = `cluster${randomBytes(3).toString('hex')}`;
    const credentials = createBusCredentials('cluster');
    const nats = await startOwnNats({
      dir: join(dir, 'nats'),
      users: credentials.natsUsers,
      nodes: 3,
      namespace,
    });
    await nats.start();
    cleanups.push(() => nats.stop());
    const postgres = await ownPostgres(dir);
    await postgres.start();
    cleanups.push(() => postgres.stop());
    const provider = await startChatCompletionsProvider({
      fallback: textReply('A short answer from the scripted model.'),
    });
    cleanups.push(() => provider.stop());
    const receiver = await startRunReceiver();
    cleanups.push(() => receiver.stop());

    // One key list for both services that seal secrets, as in deploy/ (decision 151).
    const credentialKeys = generateCredentialKey('cluster');
    const replicas = await createReplicas({
      repoRoot: REPO_ROOT,
      logDir,
      credentials,
      common: {
        NODE_ENV: 'development',
        NATS_URL: nats.url,
        NATS_STREAM_REPLICAS: '3',
        NATS_NAMESPACE: namespace,
        DATABASE_URL: postgres.url,
        SESSION_JWT_SECRET: SESSION_SECRET,
        LOG_LEVEL: 'warn',
      },
      perApp: {
        chat: {
          LLM_BASE_URL: provider.baseUrl,
          LLM_MODEL: 'cluster-model',
          // A turn of a killed replica ends as failed after the lease, within the checks' wait.
          TURN_LEASE_MS: '5000',
          TURN_HEARTBEAT_MS: '1000',
          // The load sends one person's messages at a pace a person would not (decision 124).
          CHAT_MESSAGES_PER_MINUTE_PER_USER: '100000',
          CHAT_MESSAGES_PER_MINUTE_PER_WORKSPACE: '100000',
        },
        'mcp-registry': { CREDENTIALS_ENCRYPTION_KEYS: credentialKeys },
        // A killed runner's leased runs resume after this long.
        'workflow-runner': {
          RUN_LEASE_MS: '3000',
          CREDENTIALS_ENCRYPTION_KEYS: credentialKeys,
          // The steps of the run operations call the receiver on loopback.
          HTTP_STEP_SSRF_ALLOWLIST: '127.0.0.1',
          // A bulk cancel of 200 runs then takes about 20 passes, so that a kill falls inside it.
          RUN_BATCH_INTERVAL_MS: '1000',
          RUN_BATCH_CANCELS_PER_PASS: '10',
        },
        'webhook-ingest': {
          // Webhooks reach it through the gateways; its own door takes any free port.
          WEBHOOK_PORT: '0',
          WEBHOOK_RATE_LIMIT_PER_SECOND: '100000',
          WEBHOOK_RATE_LIMIT_BURST: '100000',
        },
      },
    });
    cleanups.push(async () => {
      await Promise.all(replicas.map((replica) => replica.stop()));
    });
    process.once('exit', () => replicas.forEach((replica) => replica.killNow()));
    // First replicas first: two processes of one service would otherwise migrate at once.
    const first = replicas.filter((replica) => replica.name.endsWith('-1'));
    const second = replicas.filter((replica) => replica.name.endsWith('-2'));
    first.forEach((replica) => replica.start());
    await waitUntilReady(first);
    second.forEach((replica) => replica.start());
    await waitUntilReady(replicas);
    const gateways = replicas.filter((replica) => replica.app === 'gateway').map((r) => r.url);
    console.log(
      `\n${replicas.length} processes ready; NATS cluster ${nats.url}; logs in ${logDir}`,
    );

    const cookie = `session=${await mintSessionToken({
      secret: SESSION_SECRET,
      sub: 'cluster|cluster@example.com',
      email: 'cluster@example.com',
      name: 'Cluster',
      platformAdmin: true,
      expiresInSec: 3600,
    })}`;
    const call = gatewayClient(gateways, cookie);
    const target = await createWorkload(call);
    const load = mixedLoad({ call, ...target });
    const operations = runOperations(call, target.workspaceId, receiver);
    await operations.prepare();
    const probes = gateways.map((gateway) => gatewayClient([gateway], cookie));

    /** Every replica ready and, through each gateway, reads, a write read back, a webhook, a chat. */
    async function probe(phase: Phase): Promise<boolean> {
      if (!(await allReady(replicas))) return false;
      phase.readyAt ??= Date.now();
      for (const probeCall of probes) {
        const me = await probeCall('GET', '/me');
        const task = await probeCall('POST', '/tasks', {
          workspaceId: target.workspaceId,
          title: 'probe',
        });
        const taskId = (task.body as { task?: { id?: string } } | undefined)?.task?.id;
        if (task.status === 201 && taskId)
          load.acknowledged.tasks.push({ id: taskId, title: 'probe' });
        const read = taskId ? await probeCall('GET', `/tasks/${taskId}`) : undefined;
        const hook = await probeCall('POST', `/webhooks/${target.webhookId}`, {
          probe: randomBytes(6).toString('hex'),
        });
        const eventId = (hook.body as { eventId?: string; triggered?: number } | undefined)
          ?.eventId;
        if (hook.status === 200 && eventId) load.acknowledged.eventIds.push(eventId);
        const chat = await probeCall('POST', '/ai-chat/conversations', {
          workspaceId: target.workspaceId,
          title: 'probe',
        });
        const servers = await probeCall('GET', `/mcp-registry?workspaceId=${target.workspaceId}`);
        const workflow = await probeCall('GET', `/workflows/${target.workflowId}`);
        const ok =
          me.status === 200 &&
          read?.status === 200 &&
          hook.status === 200 &&
          chat.status === 201 &&
          servers.status === 200 &&
          workflow.status === 200;
        if (!ok) return false;
      }
      return true;
    }

    async function awaitRecovery(phase: Phase): Promise<void> {
      while (Date.now() - phase.returnedAt < RECOVERY_GIVE_UP_MS) {
        const probeStarted = Date.now();
        if (await probe(phase)) {
          phase.recoveredAt = probeStarted;
          break;
        }
        await sleep(200);
      }
      phase.waitEndedAt = Date.now();
      const after = (at: number | undefined) =>
        at === undefined ? 'never' : `${((at - phase.returnedAt) / 1000).toFixed(1)} s`;
      console.log(
        `  ${phase.name}: every replica ready ${after(phase.readyAt)}, ` +
          `recovered ${after(phase.recoveredAt)} after it returned`,
      );
      await sleep(STEADY_MS);
    }

    const phases: Phase[] = [];
    load.start();
    const loadStartedAt = Date.now();
    await sleep(STEADY_MS);

    for (const [index, app] of APPS.entries()) {
      // Alternate which replica dies, so both slots of the load balancer see a death.
      const victim = replicas.find((replica) => replica.name === `${app}-${(index % 2) + 1}`);
      if (!victim) throw new Error(`no replica of ${app}`);
      const faultAt = Date.now();
      await victim.kill9();
      await sleep(OUTAGE_MS);
      victim.start();
      const phase: Phase = { name: `kill -9 ${victim.name}`, faultAt, returnedAt: Date.now() };
      phases.push(phase);
      await awaitRecovery(phase);
    }

    // Every runner killed at once, so that no runner is alive when the backoffs fall due and
    // the batch's lease is held by a dead process.
    const runners = replicas.filter((replica) => replica.app === 'workflow-runner');
    for (const [name, cause] of [
      ['kill -9 every runner in step backoffs', () => operations.startRetryingRuns()],
      ['kill -9 every runner in a bulk cancel', () => operations.startBulkCancel()],
    ] as const) {
      await cause();
      const faultAt = Date.now();
      await Promise.all(runners.map((runner) => runner.kill9()));
      await sleep(OUTAGE_MS);
      runners.forEach((runner) => runner.start());
      const phase: Phase = { name, faultAt, returnedAt: Date.now() };
      phases.push(phase);
      await awaitRecovery(phase);
    }

    const webhookStreamLeader = () =>
      streamLeader(nats.url, credentials, `${namespace.toUpperCase()}_${WEBHOOK_EVENTS_STREAM}`);
    for (const which of ['a follower', 'the webhook stream leader'] as const) {
      const leader = await webhookStreamLeader();
      const node = nats.nodes.find((candidate) =>
        which === 'a follower' ? candidate.name !== leader : candidate.name === leader,
      );
      if (!node) throw new Error(`no NATS node is ${which} (leader: ${leader})`);
      const faultAt = Date.now();
      await node.kill9();
      await sleep(OUTAGE_MS);
      await node.start();
      const phase: Phase = {
        name: `kill -9 NATS ${node.name} (${which})`,
        faultAt,
        returnedAt: Date.now(),
      };
      phases.push(phase);
      await awaitRecovery(phase);
    }
    {
      const faultAt = Date.now();
      await nats.stop();
      await sleep(OUTAGE_MS);
      await nats.start();
      const phase: Phase = { name: 'restart every NATS node', faultAt, returnedAt: Date.now() };
      phases.push(phase);
      await awaitRecovery(phase);
    }
    {
      const faultAt = Date.now();
      postgres.crash();
      await sleep(OUTAGE_MS);
      await postgres.start();
      const phase: Phase = { name: 'restart PostgreSQL', faultAt, returnedAt: Date.now() };
      phases.push(phase);
      await awaitRecovery(phase);
    }

    await load.stop();
    const loadEndedAt = Date.now();
    console.log(
      `\nload: ${load.outcomes.length} requests in ${((loadEndedAt - loadStartedAt) / 1000).toFixed(0)} s` +
        (load.notSent() > 0 ? `, ${load.notSent()} not sent (too many waiting)` : ''),
    );
    const findings = await checkAcknowledged({
      databaseUrl: postgres.url,
      workflowId: target.workflowId,
      call,
      acknowledged: load.acknowledged,
      loadEndedAt,
    });
    const operated = await operations.check();
    passed = report(phases, load.outcomes, loadStartedAt, { ...findings, operated }, replicas);
    return passed;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await Promise.resolve()
        .then(cleanup)
        .catch((error: unknown) => console.error('cleanup failed:', error));
    }
    if (passed) rmSync(dir, { recursive: true, force: true });
    else console.log(`\nlogs kept in ${logDir}`);
  }
}

/** A workspace with credits and a live workflow of one free step, as a user sets one up. */
async function createWorkload(call: GatewayCall) {
  const ok = async (method: string, path: string, body?: unknown) => {
    const answer = await call(method, path, body);
    if (answer.status >= 300) {
      throw new Error(
        `${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    }
    return answer.body as Record<string, unknown>;
  };
  const { workspace } = (await ok('POST', '/workspaces', { name: 'Cluster' })) as {
    workspace: { id: string };
  };
  await ok('POST', `/workspaces/${workspace.id}/credits/grants`, { amount: 10, reason: 'cluster' });
  const { workflow, webhook } = (await ok('POST', '/workflows', {
    workspaceId: workspace.id,
    name: 'Cluster',
    trigger: { type: 'custom_webhook' },
    steps: [{ type: 'delay', name: 'free step', settings: { seconds: 0 } }],
  })) as { workflow: { id: string }; webhook: { id: string } };
  const { runId } = (await ok('POST', `/workflows/${workflow.id}/run`)) as { runId: string };
  for (;;) {
    const { run } = (await ok('GET', `/runs/${runId}`)) as { run: { status: string } };
    if (run.status === 'succeeded') break;
    if (run.status === 'failed') throw new Error('the test run of the workflow failed');
    await sleep(100);
  }
  await ok('POST', `/workflows/${workflow.id}/live`);
  return { workspaceId: workspace.id, workflowId: workflow.id, webhookId: webhook.id };
}

const PHASE_WIDTH = 48;
const failed = (outcome: Outcome) => outcome.status === 0 || outcome.status >= 500;
const unexpected = (outcome: Outcome) => outcome.status >= 300 && outcome.status < 500;

function describe(outcomes: readonly Outcome[]): string {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) {
    const key = `${outcome.kind} ${outcome.status || 'no answer'}${outcome.detail ? ` ${outcome.detail}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, count]) => `${count}× ${key}`).join('; ');
}

function report(
  phases: readonly Phase[],
  outcomes: readonly Outcome[],
  loadStartedAt: number,
  findings: Findings & { operated: RunOperationFindings },
  replicas: readonly Replica[],
): boolean {
  // A failure is excused when the request was out while a fault was not yet recovered from:
  // sent before the recovery and answered after the fault began. Any other failure is a miss,
  // shown under the last fault before it was sent.
  const excusedBy = (outcome: Outcome) =>
    phases.find(
      (phase) =>
        outcome.sentAt < (phase.recoveredAt ?? phase.waitEndedAt ?? Number.POSITIVE_INFINITY) &&
        outcome.answeredAt >= phase.faultAt,
    );
  const failures = outcomes.filter(failed);
  const afterRecovery = failures.filter((outcome) => !excusedBy(outcome));
  const steadyFailures = afterRecovery.filter(
    (outcome) => outcome.sentAt < (phases[0]?.faultAt ?? Number.POSITIVE_INFINITY),
  );
  console.log(
    `\n${'phase'.padEnd(PHASE_WIDTH)}requests  5xx/no answer during  after recovery  ready in  recovered in`,
  );
  let slowest = 0;
  let unrecovered = 0;
  for (const [index, phase] of phases.entries()) {
    const end = phases[index + 1]?.faultAt ?? Number.POSITIVE_INFINITY;
    const inPhase = outcomes.filter((o) => o.sentAt >= phase.faultAt && o.sentAt < end);
    const during = failures.filter((o) => excusedBy(o) === phase);
    const after = afterRecovery.filter((o) => o.sentAt >= phase.faultAt && o.sentAt < end);
    const seconds = (at: number | undefined) =>
      at === undefined ? undefined : (at - phase.returnedAt) / 1000;
    const recovered = seconds(phase.recoveredAt);
    if (recovered === undefined) unrecovered += 1;
    else slowest = Math.max(slowest, recovered);
    const shown = (value: number | undefined) =>
      value === undefined ? 'never' : `${value.toFixed(1)} s`;
    console.log(
      `${phase.name.padEnd(PHASE_WIDTH)}${String(inPhase.length).padStart(8)}` +
        `${String(during.length).padStart(22)}${String(after.length).padStart(16)}` +
        `${shown(seconds(phase.readyAt)).padStart(10)}${shown(recovered).padStart(14)}`,
    );
    if (during.length > 0) console.log(`    during: ${describe(during)}`);
    if (after.length > 0) console.log(`    AFTER RECOVERY: ${describe(after)}`);
  }
  if (steadyFailures.length > 0) console.log(`before the first fault: ${describe(steadyFailures)}`);
  const unexpectedAnswers = outcomes.filter(unexpected);
  const acknowledged = outcomes.filter((o) => o.status >= 200 && o.status < 300).length;
  const { webhooks, tasks, turns, operated } = findings;
  const { retries, cancel } = operated;
  console.log(
    `\nrequests sent ${outcomes.length} (since ${new Date(loadStartedAt).toISOString()}), acknowledged ${acknowledged}` +
      `\nwebhooks acknowledged ${webhooks.acknowledged}: runs ${JSON.stringify(webhooks.runStatuses)}, ` +
      `all ended ${webhooks.settledAfterS.toFixed(1)} s after the load` +
      `\ntasks acknowledged ${tasks.acknowledged} (probes included)` +
      `\nturns acknowledged ${turns.acknowledged}: ${JSON.stringify(turns.statuses)}` +
      `\nruns retrying a flaky call ${retries.runs}, attempts cut off and sent again ${retries.resent}` +
      `\nruns cancelled in bulk ${cancel.runs}: batch ${cancel.batch} ${JSON.stringify(cancel.progress)}`,
  );
  const crashed = replicas.filter((replica) => replica.unexpectedExits.length > 0);
  const checks: [string, boolean][] = [
    [
      `lost webhooks (acknowledged, no run): ${webhooks.withoutRun.length}`,
      webhooks.withoutRun.length === 0,
    ],
    [
      `lost writes (acknowledged task not readable): ${tasks.unreadable.length}`,
      tasks.unreadable.length === 0,
    ],
    [`lost turns (acknowledged, not found): ${turns.notFound.length}`, turns.notFound.length === 0],
    [`turns never ended: ${turns.stuck.length}`, turns.stuck.length === 0],
    [
      `runs of acknowledged webhooks never ended: ${webhooks.unfinished.length}`,
      webhooks.unfinished.length === 0,
    ],
    [
      `duplicated (events with two runs or more): ${webhooks.duplicated.length}`,
      webhooks.duplicated.length === 0,
    ],
    [`5xx or no answer once recovered: ${afterRecovery.length}`, afterRecovery.length === 0],
    [`4xx answers to valid requests: ${unexpectedAnswers.length}`, unexpectedAnswers.length === 0],
    [
      `retrying runs not succeeded: ${retries.notSucceeded.length}`,
      retries.notSucceeded.length === 0,
    ],
    [
      `steps attempted more than their policy and resends say: ${retries.overAttempted.length}`,
      retries.overAttempted.length === 0,
    ],
    [
      `steps whose requests and recorded attempts disagree: ${retries.miscounted.length}`,
      retries.miscounted.length === 0,
    ],
    [
      `attempts made before their backoff passed: ${retries.early.length}`,
      retries.early.length === 0,
    ],
    [
      `bulk cancel ${cancel.batch}, runs not cancelled: ${cancel.notCancelled.length}`,
      cancel.batch === 'succeeded' && cancel.notCancelled.length === 0,
    ],
    [
      `steps after a cancelled delay that ran: ${cancel.laterSteps}; cancelled runs charged: ${cancel.charged.length}`,
      cancel.laterSteps === 0 && cancel.charged.length === 0,
    ],
    [
      `slowest recovery: ${slowest.toFixed(1)} s after the process returned` +
        (unrecovered > 0 ? `, ${unrecovered} never` : '') +
        ` (target ≤ ${RECOVERY_TARGET_MS / 1000} s)`,
      unrecovered === 0 && slowest * 1000 <= RECOVERY_TARGET_MS,
    ],
    [
      `processes that died by themselves: ${crashed.map((r) => `${r.name} (${r.unexpectedExits.join(', ')})`).join('; ') || 'none'}`,
      crashed.length === 0,
    ],
  ];
  console.log('');
  for (const [line, holds] of checks) console.log(`${holds ? 'ok    ' : 'MISSED'} ${line}`);
  if (unexpectedAnswers.length > 0) console.log(`  4xx: ${describe(unexpectedAnswers)}`);
  for (const [label, ids] of [
    ['webhooks without a run', webhooks.withoutRun],
    ['runs never ended (event ids)', webhooks.unfinished],
    ['unreadable tasks', tasks.unreadable],
    ['turns not found', turns.notFound],
    ['turns never ended', turns.stuck],
    ['duplicated events', webhooks.duplicated],
    ['retrying runs not succeeded', retries.notSucceeded],
    ['runs over-attempted', retries.overAttempted],
    ['runs miscounted', retries.miscounted],
    ['runs attempted early', retries.early],
    ['runs not cancelled', cancel.notCancelled],
    ['cancelled runs charged', cancel.charged],
  ] as const) {
    if (ids.length > 0) console.log(`  ${label}: ${ids.slice(0, 10).join(', ')}`);
  }
  for (const replica of crashed) console.log(`\n--- ${replica.name}\n${replica.logTail(30)}`);
  const passed = checks.every(([, holds]) => holds);
  console.log(
    passed ? '\ncluster test passed' : '\ncluster test FAILED: a target missed (see above)',
  );
  return passed;
}

main().then(
  (passed) => process.exit(passed ? 0 : 1),
  (error: unknown) => {
    console.error('\ncluster test FAILED:', error);
    process.exit(1);
  },
);
