import { randomBytes } from 'node:crypto';
import { generateCredentialKey, mintSessionToken } from '@wap/auth';
import {
  createTestDatabase,
  startChatCompletionsProvider,
  type ChatCompletionsProvider,
  type ScriptedReply,
  type TestDatabase,
  openEventStream,
  readAllEvents,
  type ServerSentEvent,
  runApp,
  startProcessBus,
  type ProcessBus,
  type RunningProcess,
} from '@wap/testing';
import { http, uniqueEmail } from './stack';

const SESSION_SECRET = 'chat-replicas-secret-0123456789abcdef0123';
const REPLICAS = ['chat-a', 'chat-b'] as const;
type Replica = (typeof REPLICAS)[number];
/** Short leases so that a killed replica's turn ends within seconds in the test. */
const TURN_LEASE_MS = 3000;

/** A reply long enough to be stopped midway: 600 pieces 20 ms apart. */
function slowReply(): ScriptedReply {
  return { text: Array.from({ length: 600 }, (_, index) => `t${index} `), chunkDelayMs: 20 };
}

describe('chat turns across two chat processes on the distributed runtime', () => {
  let database: TestDatabase;
  let bus: ProcessBus;
  let provider: ChatCompletionsProvider;
  let env: Record<string, string>;
  const namespace = `c${randomBytes(6).toString('hex')}`;
  const processes = new Map<string, RunningProcess>();
  let gatewayUrl: string;
  let cookie: string;
  let chatId: string;

  async function start(name: string, app: string): Promise<void> {
    const running = runApp(app, env, bus);
    processes.set(name, running);
    await running.waitForLine(new RegExp(`"msg":"${app} ready"`), 60_000);
  }

  function logOf(name: Replica): string {
    return processes.get(name)?.output() ?? '';
  }

  async function startTurn(content: string): Promise<string> {
    const sent = await http(`${gatewayUrl}/ai-chat/conversations/${chatId}/messages`, {
      method: 'POST',
      cookie,
      body: { content },
    });
    expect(sent.status).toBe(202);
    return (sent.body as { requestId: string }).requestId;
  }

  function eventsUrl(requestId: string): string {
    return `${gatewayUrl}/brain/turns/${requestId}/events`;
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    provider = await startChatCompletionsProvider({ fallback: slowReply() });
    bus = await startProcessBus(namespace);
    env = {
      NATS_NAMESPACE: namespace,
      DATABASE_URL: database.url,
      SESSION_JWT_SECRET: SESSION_SECRET,
      REQUEST_TIMEOUT_MS: '3000',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('e2e'),
      LLM_BASE_URL: provider.baseUrl,
      LLM_MODEL: 'scripted-model',
      TURN_LEASE_MS: String(TURN_LEASE_MS),
      TURN_HEARTBEAT_MS: '1000',
    };
    const gateway = runApp('gateway', env, bus);
    processes.set('gateway', gateway);
    await Promise.all([
      start('storage', 'storage'),
      start('mcp-registry', 'mcp-registry'),
      ...REPLICAS.map((name) => start(name, 'chat')),
    ]);
    const [, url] = await gateway.waitForLine(/"url":"(http:\/\/[^"]+)"/, 60_000);
    gatewayUrl = url ?? '';

    const email = uniqueEmail('replicas');
    cookie = `session=${await mintSessionToken({ secret: SESSION_SECRET, sub: `test|${email}`, email, name: 'Replicas' })}`;
    const workspace = await http(`${gatewayUrl}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Two chat replicas' },
    });
    expect(workspace.status).toBe(201);
    const workspaceId = (workspace.body as { workspace: { id: string } }).workspace.id;
    const chat = await http(`${gatewayUrl}/ai-chat/conversations`, {
      method: 'POST',
      cookie,
      body: { workspaceId, title: 'Across replicas' },
    });
    expect(chat.status).toBe(201);
    chatId = (chat.body as { conversation: { id: string } }).conversation.id;
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...processes.values()].map((running) => running.stop('SIGKILL')));
    await provider?.stop();
    await database?.drop();
    await bus?.stop();
  });

  test('a turn started through one replica is stopped by a cancel that lands on the other', async () => {
    // Which replica takes a request is the queue group's choice: turns are started and
    // stopped until a stop has landed on the replica that does not run the turn.
    let crossed = 0;
    for (let attempt = 0; attempt < 16 && crossed === 0; attempt += 1) {
      const requestsBefore = provider.requests.length;
      const requestId = await startTurn(`turn ${attempt}`);
      const providerRequest = await provider.waitForRequest(requestsBefore + 1);
      const stream = await openEventStream(eventsUrl(requestId), { cookie });
      await stream.waitFor((event) => event.event === 'delta');

      const stopped = await http(`${gatewayUrl}/brain/cancel`, {
        method: 'POST',
        cookie,
        body: { requestId },
      });
      expect(stopped.status).toBe(200);
      expect(stopped.body).toEqual({
        success: true,
        status: 'stopped',
        requestId,
        cancelledRequestIds: [requestId],
      });
      await provider.waitForClientClose(providerRequest.index);
      await stream.ended;
      expect(stream.events.at(-1)?.data).toEqual({ status: 'stopped' });

      // The owner logs the turn's end after storing it, which the stream and the stop's answer
      // already saw: the line may still be on its way through the process's stdout.
      const ended = new RegExp(`"requestId":"${requestId}","status":"stopped"`);
      const owner = await Promise.any(
        REPLICAS.map(async (name) => {
          const running = processes.get(name);
          if (!running) throw new Error(`${name} is not running`);
          await running.waitForLine(ended, 10_000);
          return name;
        }),
      );
      const forwarder = REPLICAS.find((name) =>
        new RegExp(`"requestId":"${requestId}".*stop forwarded`).test(logOf(name)),
      );
      expect(owner).toBeDefined();
      if (forwarder) {
        expect(forwarder).not.toBe(owner);
        crossed += 1;
      }
    }
    expect(crossed).toBe(1);
  });

  test('a stream resumed with Last-Event-ID on the other replica after the turn replica was killed: no event missed or repeated, and the turn ends as failed', async () => {
    // Only chat-a runs while the turn starts, so it owns the turn and serves the first events.
    expect(await processes.get('chat-b')?.stop('SIGTERM')).toBe(143);
    const requestId = await startTurn('long answer, then a crash');
    const first = await openEventStream(eventsUrl(requestId), { cookie });
    await first.waitFor((event) => event.event === 'delta' && Number(event.id) >= 4);
    first.close();
    const seen: ServerSentEvent[] = [...first.events];

    await start('chat-b', 'chat');
    expect(await processes.get('chat-a')?.stop('SIGKILL')).toBe('SIGKILL');

    const rest = await readAllEvents(eventsUrl(requestId), {
      cookie,
      lastEventId: seen.at(-1)?.id,
    });
    const all = [...seen, ...rest];
    expect(all.map((event) => Number(event.id))).toEqual(all.map((_, index) => index + 1));
    expect(all.at(-1)?.data).toEqual({
      status: 'failed',
      error: 'The chat replica running this turn stopped answering',
    });
    const turn = await http(`${gatewayUrl}/brain/turns/${requestId}`, { cookie });
    expect(turn.body).toMatchObject({ status: 'failed' });
    const listed = await http(`${gatewayUrl}/ai-chat/conversations/${chatId}/messages?limit=500`, {
      cookie,
    });
    const reply = (listed.body as { messages: Array<Record<string, unknown>> }).messages.find(
      (message) => message['request_id'] === requestId && message['role'] === 'assistant',
    );
    expect(reply?.['status']).toBe('failed');
    // The reply keeps the text the killed replica had stored.
    expect(reply?.['content']).toBe(
      all
        .filter((event) => event.event === 'delta')
        .map((event) => event.data['text'])
        .join(''),
    );
  });
});
