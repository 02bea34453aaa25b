import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { generateCredentialKey, mintSessionToken } from '@wap/auth';
import {
  createTestDatabase,
  eventually,
  type TestDatabase,
  runApp,
  startProcessBus,
  type ProcessBus,
  type RunningProcess,
} from '@wap/testing';
import { http, uniqueEmail } from './stack';

/**
 * Issue 20's scrapes: every process's `/metrics` (a service's on its health port, the gateway's
 * on its own port) read after real traffic, parsed with a Prometheus text parser, and checked
 * for the catalog's families and label names, counters that moved for that traffic, and label
 * values that never hold an id (decision 100).
 */

/** Starting a process from source (tsx) on a busy machine: minutes, not seconds. */
const STARTUP_MS = 480_000;
/** How long traffic and scrapes may take to show their effect on that busy machine. */
const SETTLE_MS = 60_000;
const settled = <T>(check: () => Promise<T>): Promise<T> => eventually(check, SETTLE_MS);
const SESSION_SECRET = 'metrics-spec-session-secret-0123456789abcdef';
const SERVICES = ['storage', 'workflow-runner', 'chat', 'mcp-registry', 'webhook-ingest'] as const;
type ProcessName = (typeof SERVICES)[number] | 'gateway';

interface Series {
  labels: Record<string, string>;
  /** A counter's or gauge's value; a histogram's count. */
  value: number;
}
interface Family {
  type: string;
  series: Series[];
}
type Scrape = Map<string, Family>;

/**
 * parse-prometheus-text-format 1.1 follows prom2json's layout for histograms, which folds every
 * series of a family into one and drops their labels: each histogram is read a second time
 * declared untyped, where its `_count` lines stay samples with their labels.
 */
function parseScrape(text: string): { families: Scrape; allLabels: Record<string, string>[] } {
  const families: Scrape = new Map();
  for (const family of parsePrometheusTextFormat(text)) {
    families.set(family.name, {
      type: family.type,
      series:
        family.type === 'HISTOGRAM'
          ? []
          : family.metrics.map((sample) => ({
              labels: sample.labels ?? {},
              value: Number(sample.value),
            })),
    });
  }
  const allLabels: Record<string, string>[] = [];
  const untyped = text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped');
  for (const family of parsePrometheusTextFormat(untyped)) {
    for (const sample of family.metrics) allLabels.push(sample.labels ?? {});
    const histogram = family.name.endsWith('_count')
      ? families.get(family.name.slice(0, -'_count'.length))
      : undefined;
    if (histogram?.type !== 'HISTOGRAM') continue;
    // Each series of a histogram ends with its own _count line, so its family comes once per series.
    histogram.series.push(
      ...family.metrics.map((sample) => ({
        labels: sample.labels ?? {},
        value: Number(sample.value),
      })),
    );
  }
  return { families, allLabels };
}

async function scrape(
  url: string,
): Promise<{ families: Scrape; allLabels: Record<string, string>[] }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseScrape(await response.text());
}

/** A family of the catalog, its label names (besides `service`) and, optionally, a series that moved. */
interface Expectation {
  process: ProcessName;
  family: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM';
  labelNames: string[];
  moved?: Record<string, string>;
}

const EXPECTED: Expectation[] = [
  {
    process: 'gateway',
    family: 'wap_http_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['method', 'route', 'status'],
    moved: { method: 'GET', route: '/me', status: '200' },
  },
  {
    process: 'gateway',
    family: 'wap_bus_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['subject', 'side', 'outcome'],
    moved: { subject: 'storage.api.get_me.v1', side: 'client', outcome: 'ok' },
  },
  {
    process: 'storage',
    family: 'wap_bus_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['subject', 'side', 'outcome'],
    moved: { subject: 'storage.api.create_workspace.v1', side: 'server', outcome: 'ok' },
  },
  {
    process: 'workflow-runner',
    family: 'wap_workflow_runs_started_total',
    type: 'COUNTER',
    labelNames: ['trigger'],
    moved: { trigger: 'custom_webhook' },
  },
  {
    process: 'workflow-runner',
    family: 'wap_workflow_runs_started_total',
    type: 'COUNTER',
    labelNames: ['trigger'],
    moved: { trigger: 'manual' },
  },
  {
    process: 'workflow-runner',
    family: 'wap_workflow_run_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['status'],
    moved: { status: 'succeeded' },
  },
  {
    process: 'workflow-runner',
    family: 'wap_stream_messages_total',
    type: 'COUNTER',
    labelNames: ['stream', 'consumer', 'outcome'],
    moved: { stream: 'WEBHOOK_EVENTS', consumer: 'workflow-runner-test-events', outcome: 'acked' },
  },
  {
    process: 'workflow-runner',
    family: 'wap_stream_redeliveries_total',
    type: 'COUNTER',
    labelNames: ['stream', 'consumer'],
  },
  {
    process: 'workflow-runner',
    family: 'wap_bus_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['subject', 'side', 'outcome'],
    moved: { subject: 'workflow.api.create_workflow.v2', side: 'server', outcome: 'ok' },
  },
  {
    process: 'webhook-ingest',
    family: 'wap_webhook_requests_total',
    type: 'COUNTER',
    labelNames: ['entry', 'outcome', 'reason'],
    moved: { entry: 'custom', outcome: 'accepted' },
  },
  {
    process: 'webhook-ingest',
    family: 'wap_bus_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['subject', 'side', 'outcome'],
    moved: { subject: 'webhook.api.trigger.v1', side: 'server', outcome: 'ok' },
  },
  {
    process: 'chat',
    family: 'wap_chat_turn_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['status'],
    moved: { status: 'completed' },
  },
  {
    process: 'chat',
    family: 'wap_chat_cancels_total',
    type: 'COUNTER',
    labelNames: ['kind', 'outcome'],
    moved: { kind: 'turn', outcome: 'already_ended' },
  },
  {
    process: 'mcp-registry',
    family: 'wap_mcp_syncs_total',
    type: 'COUNTER',
    labelNames: ['outcome'],
    moved: { outcome: 'failed' },
  },
  {
    process: 'mcp-registry',
    family: 'wap_mcp_tool_call_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['outcome'],
  },
  {
    process: 'mcp-registry',
    family: 'wap_bus_request_duration_seconds',
    type: 'HISTOGRAM',
    labelNames: ['subject', 'side', 'outcome'],
    moved: { subject: 'mcp.api.register_mcp_server.v1', side: 'server', outcome: 'ok' },
  },
];

/** The durable consumers whose lag workflow-runner reports from the stream at scrape time. */
const LAGGED_CONSUMERS = [
  { stream: 'RUNS', consumer: 'workflow-runner-runs' },
  { stream: 'WEBHOOK_EVENTS', consumer: 'workflow-runner-test-events' },
];

const PROCESS_FAMILIES = ['process_cpu_user_seconds_total', 'nodejs_eventloop_lag_seconds'];
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const LONG_DIGITS = /\d{6,}/;
const SUBJECT_TEMPLATE = /^[a-z_]+\.(api|cmd|evt)\.[a-z_]+\.v\d+$/;

/** What the scrape lacks for `expected`, as readable lines (none when it holds it). */
function problemsOf(families: Scrape, expected: Expectation): string[] {
  const family = families.get(expected.family);
  if (family?.type !== expected.type) {
    return [`${expected.family}: type ${family?.type ?? 'missing'}, not ${expected.type}`];
  }
  const labelNames = [...expected.labelNames, 'service'].sort().join(',');
  const problems = family.series
    .map((series) => Object.keys(series.labels).sort().join(','))
    .filter((names) => names !== labelNames)
    .map((names) => `${expected.family}: labels ${names}, not ${labelNames}`);
  const { moved } = expected;
  if (!moved) return problems;
  const total = family.series
    .filter((series) =>
      Object.entries(moved).every(([name, value]) => series.labels[name] === value),
    )
    .reduce((sum, series) => sum + series.value, 0);
  if (total < 1) {
    problems.push(
      `${expected.family}: nothing counted for ${JSON.stringify(moved)} among ${JSON.stringify(
        family.series.map((series) => series.labels),
      )}`,
    );
  }
  return problems;
}

function lagProblems(families: Scrape): string[] {
  const lag = families.get('wap_stream_consumer_pending_messages');
  if (lag?.type !== 'GAUGE') return ['wap_stream_consumer_pending_messages: no gauge'];
  return LAGGED_CONSUMERS.filter(
    ({ stream, consumer }) =>
      !lag.series.some(
        (series) =>
          series.labels['stream'] === stream &&
          series.labels['consumer'] === consumer &&
          series.value >= 0,
      ),
  ).map(({ stream, consumer }) => `no lag read for ${stream}/${consumer}`);
}

/** Every label value is a template or a closed-set word: no id, no namespace, no long number. */
function labelProblems(
  allLabels: Record<string, string>[],
  ids: string[],
  namespace?: string,
): string[] {
  return allLabels.flatMap((labels) =>
    Object.entries(labels)
      .filter(
        ([name, value]) =>
          UUID.test(value) ||
          LONG_DIGITS.test(value) ||
          ids.some((id) => value.includes(id)) ||
          (namespace !== undefined && value.toLowerCase().includes(namespace)) ||
          (name === 'subject' && value !== 'other' && !SUBJECT_TEMPLATE.test(value)),
      )
      .map(([name, value]) => `label ${name}="${value}" holds an id or is no template`),
  );
}

/** The problems of one scrape: process metrics, its service label, the expectations given. */
function scrapeProblems(
  { families, allLabels }: { families: Scrape; allLabels: Record<string, string>[] },
  service: string,
  expectations: Expectation[],
): string[] {
  const services = [...new Set(allLabels.map((labels) => labels['service']))];
  return [
    ...PROCESS_FAMILIES.filter((family) => !families.has(family)).map(
      (family) => `${family}: missing`,
    ),
    ...(services.length === 1 && services[0] === service
      ? []
      : [`service labels ${JSON.stringify(services)}, not only ${service}`]),
    ...expectations.flatMap((expected) => problemsOf(families, expected)),
  ];
}

interface Traffic {
  /** Every id the traffic made: none may show up in a label. */
  ids: string[];
}

/**
 * Through the gateway, as a person would: a workspace (a write and a read), a workflow run once
 * by hand then triggered at its webhook address, a chat turn (no model configured: it answers
 * so at once) and a stop of it once ended, and an MCP server that cannot be reached (its sync
 * fails).
 */
async function driveTraffic(gatewayUrl: string): Promise<Traffic> {
  const email = uniqueEmail('metrics');
  const session = (platformAdmin?: boolean) =>
    mintSessionToken({
      secret: SESSION_SECRET,
      sub: `test|${platformAdmin ? 'admin-' : ''}${email}`,
      email: platformAdmin ? `admin-${email}` : email,
      name: 'Metrics',
      platformAdmin,
    }).then((token) => `session=${token}`);
  const cookie = await session();
  const adminCookie = await session(true);

  const created = await http(`${gatewayUrl}/workspaces`, {
    method: 'POST',
    cookie,
    body: { name: 'Scraped' },
  });
  expect(created.status).toBe(201);
  const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
  expect((await http(`${gatewayUrl}/me`, { cookie })).status).toBe(200);
  const granted = await http(`${gatewayUrl}/workspaces/${workspaceId}/credits/grants`, {
    method: 'POST',
    cookie: adminCookie,
    body: { amount: 10, reason: 'metrics' },
  });
  expect(granted.status).toBe(201);

  const workflow = await http(`${gatewayUrl}/workflows`, {
    method: 'POST',
    cookie,
    body: {
      workspaceId,
      name: 'Scraped runs',
      trigger: { type: 'custom_webhook' },
      steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
    },
  });
  expect(workflow.status).toBe(201);
  const { workflow: made, webhook } = workflow.body as {
    workflow: { id: string };
    webhook: { id: string };
  };
  const manual = await http(`${gatewayUrl}/workflows/${made.id}/run`, { method: 'POST', cookie });
  expect(manual.status).toBe(202);
  const manualRunId = (manual.body as { runId: string }).runId;
  await settled(async () => {
    const run = await http(`${gatewayUrl}/runs/${manualRunId}`, { cookie });
    expect((run.body as { run: { status: string } }).run.status).toBe('succeeded');
  });
  expect(
    (await http(`${gatewayUrl}/workflows/${made.id}/live`, { method: 'POST', cookie })).status,
  ).toBe(200);
  await settled(async () => {
    const triggered = await http(`${gatewayUrl}/webhooks/${webhook.id}`, {
      method: 'POST',
      body: { order: { id: 7 } },
    });
    expect(triggered.body).toMatchObject({ triggered: 1 });
  });
  const webhookRunIds = await settled(async () => {
    const listed = await http(`${gatewayUrl}/workflows/${made.id}/runs`, { cookie });
    const runs = (
      listed.body as { runs: { id: string; status: string; trigger: { type: string } }[] }
    ).runs.filter((run) => run.trigger.type === 'custom_webhook');
    expect(runs.map((run) => run.status)).toEqual(['succeeded']);
    return runs.map((run) => run.id);
  });

  const chat = await http(`${gatewayUrl}/ai-chat/conversations`, {
    method: 'POST',
    cookie,
    body: { workspaceId, title: 'Scraped chat' },
  });
  expect(chat.status).toBe(201);
  const conversationId = (chat.body as { conversation: { id: string } }).conversation.id;
  const sent = await http(`${gatewayUrl}/ai-chat/conversations/${conversationId}/messages`, {
    method: 'POST',
    cookie,
    body: { content: 'Hello' },
  });
  expect(sent.status).toBe(202);
  const requestId = (sent.body as { requestId: string }).requestId;
  await settled(async () => {
    const turn = await http(`${gatewayUrl}/brain/turns/${requestId}`, { cookie });
    expect((turn.body as { status: string }).status).toBe('completed');
  });
  const cancelled = await http(`${gatewayUrl}/brain/cancel`, {
    method: 'POST',
    cookie,
    body: { requestId },
  });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: 'completed', cancelledRequestIds: [] });

  // Nothing listens on port 1: the registration is accepted and its sync fails.
  const server = await http(`${gatewayUrl}/mcp-registry`, {
    method: 'POST',
    cookie,
    body: { workspaceId, name: 'Unreachable', serverUrl: 'https://127.0.0.1:1/mcp' },
  });
  expect(server.status).toBe(201);
  const serverId = (server.body as { mcp: { id: string } }).mcp.id;

  return {
    ids: [
      workspaceId,
      made.id,
      webhook.id,
      manualRunId,
      ...webhookRunIds,
      conversationId,
      requestId,
      serverId,
    ],
  };
}

const COMMON_ENV = {
  SESSION_JWT_SECRET: SESSION_SECRET,
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  SSRF_ALLOWLIST: '127.0.0.1',
  WEBHOOK_HTTPS_REDIRECT: 'false',
  RUN_POLL_INTERVAL_MS: '50',
};

describe('metrics on the distributed runtime: each process serves its own scrape', () => {
  let database: TestDatabase;
  let bus: ProcessBus;
  const namespace = `m${randomBytes(6).toString('hex')}`;
  const processes = new Map<ProcessName, RunningProcess>();
  /** Where each process serves /metrics. */
  const scrapeUrls = new Map<ProcessName, string>();
  let gatewayUrl = '';

  beforeAll(async () => {
    database = await createTestDatabase();
    bus = await startProcessBus(namespace);
    const env = {
      ...COMMON_ENV,
      NATS_NAMESPACE: namespace,
      DATABASE_URL: database.url,
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('metrics'),
      WEBHOOK_PORT: 'off',
    };
    const gateway = runApp('gateway', env, bus);
    processes.set('gateway', gateway);
    await Promise.all(
      SERVICES.map(async (name) => {
        const running = runApp(name, env, bus);
        processes.set(name, running);
        const [, port] = await running.waitForLine(
          new RegExp(`"healthPort":(\\d+)[^\\n]*"msg":"${name} ready"`),
          STARTUP_MS,
        );
        scrapeUrls.set(name, `http://127.0.0.1:${port}/metrics`);
      }),
    );
    const [, url] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, STARTUP_MS);
    gatewayUrl = url ?? '';
    scrapeUrls.set('gateway', `${gatewayUrl}/metrics`);
  }, STARTUP_MS * 2);

  afterAll(async () => {
    await Promise.all([...processes.values()].map((running) => running.stop('SIGKILL')));
    await database?.drop();
    await bus?.stop();
  });

  test(
    'after real traffic every scrape parses, holds its families, moved, and no label holds an id',
    async () => {
      const { ids } = await driveTraffic(gatewayUrl);

      for (const name of ['gateway', ...SERVICES] as const) {
        await settled(async () => {
          const scraped = await scrape(scrapeUrls.get(name) ?? '');
          expect({
            process: name,
            problems: [
              ...scrapeProblems(
                scraped,
                name,
                EXPECTED.filter((candidate) => candidate.process === name),
              ),
              ...(name === 'workflow-runner' ? lagProblems(scraped.families) : []),
              ...labelProblems(scraped.allLabels, ids, namespace),
            ],
          }).toEqual({ process: name, problems: [] });
        });
      }
    },
    SETTLE_MS * 8,
  );

  test(
    'in production a health port serves /metrics only to the bearer of METRICS_TOKEN',
    async () => {
      const token = 'metrics-token-0123456789abcdef';
      const env = {
        ...COMMON_ENV,
        NATS_NAMESPACE: namespace,
        DATABASE_URL: database.url,
        WEBHOOK_PORT: 'off',
        NODE_ENV: 'production',
      };
      const [hidden, guarded] = await Promise.all(
        [env, { ...env, METRICS_TOKEN: token }].map(async (settings) => {
          const running = runApp('webhook-ingest', settings, bus);
          try {
            const [, port] = await running.waitForLine(
              /"healthPort":(\d+)[^\n]*"msg":"webhook-ingest ready"/,
              STARTUP_MS,
            );
            const url = `http://127.0.0.1:${port}/metrics`;
            const answer = async (authorization?: string) => {
              const response = await fetch(url, {
                headers: authorization ? { authorization } : {},
              });
              return { status: response.status, text: await response.text() };
            };
            return {
              anonymous: await answer(),
              wrong: await answer('Bearer not-the-token-at-all'),
              bearer: await answer(`Bearer ${token}`),
              logs: running.output(),
            };
          } finally {
            await running.stop('SIGKILL');
          }
        }),
      );
      expect(hidden?.anonymous.status).toBe(404);
      expect(hidden?.bearer.status).toBe(404);
      expect(guarded?.anonymous).toEqual({
        status: 401,
        text: JSON.stringify({ error: 'A metrics token is required', code: 'UNAUTHORIZED' }),
      });
      expect(guarded?.wrong.status).toBe(401);
      expect(guarded?.bearer.status).toBe(200);
      expect(guarded?.bearer.text).toContain('# TYPE ');
      expect(guarded?.logs).not.toContain(token);
    },
    STARTUP_MS * 2,
  );
});

describe('metrics on the embedded runtime: the gateway serves the whole process', () => {
  let dataDir: string;
  let embedded: RunningProcess;
  let gatewayUrl = '';

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'metrics-embedded-'));
    embedded = runApp('embedded', { ...COMMON_ENV, DATA_DIR: dataDir });
    const [, url] = await embedded.waitForLine(/Platform running at (http:\/\/\S+)/, STARTUP_MS);
    gatewayUrl = url ?? '';
  }, STARTUP_MS * 2);

  afterAll(async () => {
    await embedded?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(
    'one scrape holds every service’s families, moved by the traffic, with no id in a label',
    async () => {
      const { ids } = await driveTraffic(gatewayUrl);

      await settled(async () => {
        const scraped = await scrape(`${gatewayUrl}/metrics`);
        expect([
          ...scrapeProblems(scraped, 'embedded', EXPECTED),
          ...lagProblems(scraped.families),
          ...labelProblems(scraped.allLabels, ids),
        ]).toEqual([]);
      });
    },
    SETTLE_MS * 8,
  );
});
