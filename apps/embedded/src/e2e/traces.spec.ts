import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCredentialKey, mintSessionToken } from '@wap/auth';
import { secretFingerprint } from '@wap/http';
import {
  createTestDatabase,
  eventually,
  readAllEvents,
  startChatCompletionsProvider,
  startOtlpReceiver,
  textReply,
  toolCallReply,
  type ChatCompletionsProvider,
  type OtlpReceiver,
  type ReceivedSpan,
  type TestDatabase,
  runApp,
  startProcessBus,
  type ProcessBus,
  type RunningProcess,
} from '@wap/testing';
import { startMcpTestServers, type McpTestServers } from './mcp-test-servers';
import { http, uniqueEmail } from './stack';

const SERVICES = ['storage', 'workflow-runner', 'chat', 'mcp-registry', 'webhook-ingest'] as const;
const SESSION_SECRET = 'traces-session-secret-0123456789abcdef0123';
const LLM_API_KEY = 'sk-traces-test';
/** OTLP SpanKind values. */
const SERVER = 2;
const CLIENT = 3;
/** How long spans and runs may take to arrive on a machine shared with other tests. */
const WAIT_MS = 30_000;

/** The spans of one trace, checked to form one tree: one root, every other parent present. */
function traceTree(spans: ReceivedSpan[], traceId: string) {
  const inTrace = spans.filter((span) => span.traceId === traceId);
  const byId = new Map(inTrace.map((span) => [span.spanId, span]));
  const roots = inTrace.filter((span) => span.parentSpanId === undefined);
  const orphans = inTrace.filter(
    (span) => span.parentSpanId !== undefined && !byId.has(span.parentSpanId),
  );
  /** The chain from `span` up to the root, `span` first. */
  const ancestry = (span: ReceivedSpan): ReceivedSpan[] => {
    const chain = [span];
    for (let at = span; at.parentSpanId !== undefined;) {
      const parent = byId.get(at.parentSpanId);
      if (!parent || chain.includes(parent)) break;
      chain.push(parent);
      at = parent;
    }
    return chain;
  };
  return { spans: inTrace, roots, orphans, ancestry };
}

function only(spans: ReceivedSpan[], description: string): ReceivedSpan {
  if (spans.length !== 1) {
    throw new Error(`expected one ${description}, found ${spans.length}`);
  }
  return spans[0] as ReceivedSpan;
}

// Every service as its own process, as deployed, each exporting its spans over OTLP/HTTP to a
// real receiver: a trace is whole only if W3C trace context crossed each bus hop and stream.
describe('traces: one trace across the processes of the distributed runtime', () => {
  let receiver: OtlpReceiver;
  let provider: ChatCompletionsProvider;
  let servers: McpTestServers;
  let database: TestDatabase;
  let bus: ProcessBus;
  let caDir: string;
  let gateway: RunningProcess;
  let gatewayUrl: string;
  const processes: RunningProcess[] = [];
  const namespace = `t${randomBytes(6).toString('hex')}`;

  beforeAll(async () => {
    [receiver, provider, servers, database] = await Promise.all([
      startOtlpReceiver(),
      startChatCompletionsProvider({ apiKey: LLM_API_KEY }),
      startMcpTestServers(),
      createTestDatabase(),
    ]);
    bus = await startProcessBus(namespace);
    caDir = mkdtempSync(join(tmpdir(), 'wap-traces-'));
    writeFileSync(join(caDir, 'ca.pem'), servers.caPem);
    const env: Record<string, string> = {
      NATS_NAMESPACE: namespace,
      DATABASE_URL: database.url,
      SESSION_JWT_SECRET: SESSION_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      // The processes say they are ready at info.
      LOG_LEVEL: 'info',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // The SDK's batch processor exports every 5 s by default; the test waits for less.
      OTEL_BSP_SCHEDULE_DELAY: '100',
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('traces'),
      SSRF_ALLOWLIST: '127.0.0.1',
      MCP_EXTRA_CA_CERTS: join(caDir, 'ca.pem'),
      LLM_BASE_URL: provider.baseUrl,
      LLM_API_KEY,
      LLM_MODEL: 'traces-model',
    };
    gateway = runApp('gateway', env, bus);
    processes.push(gateway);
    await Promise.all(
      SERVICES.map(async (name) => {
        const running = runApp(name, env, bus);
        processes.push(running);
        // Six processes compile their sources at once: on a busy machine that takes minutes.
        await running.waitForLine(new RegExp(`"msg":"${name} ready"`), 240_000);
      }),
    );
    const [, url] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 240_000);
    gatewayUrl = url ?? '';
  }, 300_000);

  afterAll(async () => {
    await Promise.all(processes.map((running) => running.stop('SIGKILL')));
    await Promise.all([receiver?.close(), provider?.stop(), servers?.stop(), database?.drop()]);
    await bus?.stop();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });

  async function cookieFor(label: string, platformAdmin = false): Promise<string> {
    const email = uniqueEmail(label);
    return `session=${await mintSessionToken({
      secret: SESSION_SECRET,
      sub: `test|${email}`,
      email,
      name: label,
      platformAdmin,
    })}`;
  }

  async function newWorkspace(cookie: string): Promise<string> {
    const created = await http(`${gatewayUrl}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Traced' },
    });
    expect(created.status).toBe(201);
    return (created.body as { workspace: { id: string } }).workspace.id;
  }

  async function runStatus(cookie: string, runId: string): Promise<string> {
    const response = await http(`${gatewayUrl}/runs/${runId}`, { cookie });
    return (response.body as { run: { status: string } }).run.status;
  }

  /** A live Custom Webhook workflow with credits, its Run before going live succeeded. */
  async function liveWebhookWorkflow(label: string) {
    const cookie = await cookieFor(label);
    const workspaceId = await newWorkspace(cookie);
    const granted = await http(`${gatewayUrl}/workspaces/${workspaceId}/credits/grants`, {
      method: 'POST',
      cookie: await cookieFor('admin', true),
      body: { amount: 10, reason: 'traces' },
    });
    expect(granted.status).toBe(201);
    const created = await http(`${gatewayUrl}/workflows`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId,
        name: 'Traced orders',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', name: 'pause', settings: { seconds: 0 } }],
      },
    });
    expect(created.status).toBe(201);
    const { workflow, webhook } = created.body as {
      workflow: { id: string };
      webhook: { id: string };
    };
    // The lifecycle asks for one Run before a workflow goes live.
    const tried = await http(`${gatewayUrl}/workflows/${workflow.id}/run`, {
      method: 'POST',
      cookie,
    });
    expect(tried.status).toBe(202);
    const triedRunId = (tried.body as { runId: string }).runId;
    await eventually(
      async () => expect(await runStatus(cookie, triedRunId)).toBe('succeeded'),
      WAIT_MS,
    );
    const live = await http(`${gatewayUrl}/workflows/${workflow.id}/live`, {
      method: 'POST',
      cookie,
    });
    expect(live.status).toBe(200);
    return { cookie, workspaceId, workflow, webhook, triedRunId };
  }

  test('a Custom Webhook request is one trace from the gateway through webhook-ingest to the run and its step', async () => {
    const { cookie, workspaceId, workflow, webhook, triedRunId } =
      await liveWebhookWorkflow('webhook-owner');
    // webhook-ingest learns of the live address through a KV watch: it may answer 404 first.
    await eventually(async () => {
      const triggered = await http(`${gatewayUrl}/webhooks/${webhook.id}`, {
        method: 'POST',
        body: { order: { id: 7 } },
      });
      expect(triggered.body).toMatchObject({ triggered: 1 });
    }, WAIT_MS);
    const runId = await eventually(async () => {
      const response = await http(`${gatewayUrl}/workflows/${workflow.id}/runs`, { cookie });
      const runs = (
        response.body as { runs: { id: string; status: string; trigger: { type: string } }[] }
      ).runs.filter((run) => run.trigger.type === 'custom_webhook');
      expect(runs.map((run) => run.status)).toEqual(['succeeded']);
      return runs[0]?.id ?? '';
    }, WAIT_MS);

    const trace = await eventually(async () => {
      const runSpan = only(
        receiver.spans().filter((span) => span.attributes['wap.run.id'] === runId),
        'run span',
      );
      const tree = traceTree(receiver.spans(), runSpan.traceId);
      const step = only(
        tree.spans.filter((span) => span.name === 'workflow step delay'),
        'step span',
      );
      // Each process exports on its own schedule: the trace is whole once no parent is missing.
      expect(tree.orphans).toEqual([]);
      expect(tree.roots).toHaveLength(1);
      return { tree, runSpan, step };
    }, WAIT_MS);
    const { tree, runSpan, step } = trace;

    expect(receiver.refused()).toEqual([]);
    const [root] = tree.roots;
    expect(root).toMatchObject({
      service: 'gateway',
      kind: SERVER,
      name: expect.stringMatching(/^POST \/webhooks\//),
    });
    expect(runSpan).toMatchObject({
      service: 'workflow-runner',
      name: 'workflow run',
      attributes: { 'wap.workflow.id': workflow.id, 'wap.workspace.id': workspaceId },
    });
    expect(step).toMatchObject({
      service: 'workflow-runner',
      parentSpanId: runSpan.spanId,
      attributes: { 'wap.step.index': 0, 'wap.step.name': 'pause' },
    });
    // From the step up to the gateway: the run, the stream consumer in workflow-runner, the bus
    // handler in webhook-ingest that published the event, the gateway's call and its server span.
    const services = tree.ancestry(step).map((span) => span.service);
    expect(services.at(-1)).toBe('gateway');
    expect(new Set(services)).toEqual(new Set(['gateway', 'webhook-ingest', 'workflow-runner']));
    expect(services.indexOf('webhook-ingest')).toBeGreaterThan(
      services.lastIndexOf('workflow-runner'),
    );
    expect(tree.ancestry(step).at(-1)).toBe(root);
    // The Run before going live is a trace of its own, begun by its POST /workflows/{id}/run.
    const triedRun = only(
      receiver.spans().filter((span) => span.attributes['wap.run.id'] === triedRunId),
      'span of the first run',
    );
    expect(triedRun.traceId).not.toBe(runSpan.traceId);
    const triedTree = traceTree(receiver.spans(), triedRun.traceId);
    expect(triedTree.orphans).toEqual([]);
    expect(triedTree.ancestry(triedRun).at(-1)).toMatchObject({
      service: 'gateway',
      name: expect.stringMatching(/^POST \/workflows\/.+\/run$/),
    });
  }, 120_000);

  test('no webhook address in any log, span, metric or error body of either door (decision 120)', async () => {
    const { webhook } = await liveWebhookWorkflow('secret-owner');
    const ingest = processes.find((running) => running.output().includes('"webhook-ingest ready"'));
    const [, directDoor] = (await ingest?.waitForLine(/"webhookUrl":"(http:\/\/[^"]+)"/)) ?? [];
    const doors = [gatewayUrl, directDoor ?? ''];
    const bodies: string[] = [];
    const send = async (door: string, path: string, init: RequestInit) => {
      const response = await fetch(`${door}${path}`, init);
      const text = await response.text();
      bodies.push(text, JSON.stringify([...response.headers]));
      return { status: response.status, text };
    };
    const json = { 'content-type': 'application/json' };
    for (const door of doors) {
      // webhook-ingest learns of the live address through a KV watch: it may answer 404 first.
      await eventually(async () => {
        const triggered = await send(door, `/webhooks/${webhook.id}`, {
          method: 'POST',
          headers: json,
          body: '{"order":{"id":8}}',
        });
        expect(triggered.status).toBe(200);
      }, WAIT_MS);
      const refusals: [string, RequestInit, number][] = [
        [`/webhooks/${webhook.id}`, { method: 'POST', headers: json, body: '{"a":' }, 400],
        [
          `/webhooks/${webhook.id}`,
          { method: 'POST', headers: json, body: `${'['.repeat(300)}${']'.repeat(300)}` },
          400,
        ],
        [`/webhooks/${webhook.id}%E0%A4%A`, { method: 'POST', headers: json, body: '{}' }, 400],
        [`/webhooks/${webhook.id}/more`, { method: 'POST', headers: json, body: '{}' }, 404],
        [`/webhooks/${webhook.id.toUpperCase()}`, { method: 'PUT', body: '{}' }, 404],
      ];
      for (const [path, init, status] of refusals) {
        expect({ door, path, status: (await send(door, path, init)).status }).toEqual({
          door,
          path,
          status,
        });
      }
    }
    // Both doors' server spans have arrived once their template names are among the spans.
    await eventually(async () => {
      const names = receiver
        .spans()
        .filter((span) => span.name === 'POST /webhooks/:webhookId')
        .map((span) => span.service);
      expect(new Set(names)).toEqual(new Set(['gateway', 'webhook-ingest']));
    }, WAIT_MS);
    const metrics = await (await fetch(`${gatewayUrl}/metrics`)).text();
    expect(metrics).toContain('route="/webhooks/:webhookId"');
    const captured = {
      logs: processes.map((running) => running.output()).join('\n'),
      spans: JSON.stringify(receiver.spans()),
      metrics,
      bodies: bodies.join('\n'),
    };
    for (const [where, text] of Object.entries(captured)) {
      expect({ where, found: text.toLowerCase().includes(webhook.id.toLowerCase()) }).toEqual({
        where,
        found: false,
      });
    }
    // What the logs carry instead: the route template and a fingerprint of the address.
    expect(captured.logs).toContain(`"path":"/webhooks/~${secretFingerprint(webhook.id)}"`);
  });

  test("a chat turn is one trace from the gateway through chat's model calls to the tool call in mcp-registry", async () => {
    const cookie = await cookieFor('chat-owner');
    const workspaceId = await newWorkspace(cookie);
    const registered = await http(`${gatewayUrl}/mcp-registry`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId,
        serverType: 'custom',
        name: 'everything',
        description: 'server-everything',
        serverUrl: `${servers.origin}/open/mcp`,
        accessMode: 'everyone',
      },
    });
    expect(registered.status).toBe(201);
    await eventually(async () => {
      const tools = await http(`${gatewayUrl}/mcp-registry/tools?workspaceId=${workspaceId}`, {
        cookie,
      });
      expect((tools.body as { count?: number }).count).toBeGreaterThan(0);
    }, WAIT_MS);
    const chat = await http(`${gatewayUrl}/ai-chat/conversations`, {
      method: 'POST',
      cookie,
      body: { workspaceId, title: 'Traced chat' },
    });
    expect(chat.status).toBe(201);
    const chatId = (chat.body as { conversation: { id: string } }).conversation.id;

    provider.enqueue(toolCallReply('echo', { message: 'traced ping' }), textReply('It echoed.'));
    const sent = await http(`${gatewayUrl}/ai-chat/conversations/${chatId}/messages`, {
      method: 'POST',
      cookie,
      body: { content: 'Echo something' },
    });
    expect(sent.status).toBe(202);
    const requestId = (sent.body as { requestId: string }).requestId;
    const events = await readAllEvents(`${gatewayUrl}/brain/turns/${requestId}/events`, {
      cookie,
    });
    expect(events.at(-1)?.data['status']).toBe('completed');

    const { tree, turn } = await eventually(async () => {
      const turnSpan = only(
        receiver.spans().filter((span) => span.attributes['wap.turn.request_id'] === requestId),
        'turn span',
      );
      const found = traceTree(receiver.spans(), turnSpan.traceId);
      expect(found.spans.filter((span) => span.name === 'mcp tools/call')).toHaveLength(1);
      expect(found.orphans).toEqual([]);
      expect(found.roots).toHaveLength(1);
      return { tree: found, turn: turnSpan };
    }, WAIT_MS);

    expect(receiver.refused()).toEqual([]);
    const [root] = tree.roots;
    expect(root).toMatchObject({
      service: 'gateway',
      kind: SERVER,
      name: expect.stringMatching(/^POST \/ai-chat\/conversations\//),
    });
    expect(tree.ancestry(turn).at(-1)).toBe(root);
    expect(turn.service).toBe('chat');

    // Two model calls (the tool call, then the answer), each a client span under the turn.
    const modelCalls = tree.spans.filter((span) => span.name === 'chat model call');
    expect(modelCalls).toHaveLength(2);
    for (const call of modelCalls) {
      expect(call).toMatchObject({ service: 'chat', kind: CLIENT, parentSpanId: turn.spanId });
    }

    const toolCall = only(
      tree.spans.filter((span) => span.name === 'chat tool call'),
      'tool call span',
    );
    expect(toolCall).toMatchObject({
      service: 'chat',
      parentSpanId: turn.spanId,
      attributes: { 'wap.tool.name': 'echo' },
    });
    // The MCP call happens in mcp-registry, reached over the bus from the chat's tool call.
    const mcpCall = only(
      tree.spans.filter((span) => span.name === 'mcp tools/call'),
      'MCP call span',
    );
    expect(mcpCall).toMatchObject({
      service: 'mcp-registry',
      kind: CLIENT,
      attributes: { 'wap.mcp.tool.name': 'echo' },
    });
    const path = tree.ancestry(mcpCall);
    expect(path).toContain(toolCall);
    expect(path.map((span) => span.service)).toEqual(
      expect.arrayContaining(['mcp-registry', 'chat', 'gateway']),
    );
  }, 120_000);
});
