// The bounded mixed load: webhooks to a live workflow, chat turns on the scripted provider, and
// API reads and writes, each at a fixed rate, alternating between the two gateways. Every
// request's outcome is kept, and every acknowledged one is remembered to be checked at the end.
import { randomBytes } from 'node:crypto';

/** An answer, or status 0 when none came (connection refused or reset, timeout). */
export interface Answer {
  status: number;
  body: unknown;
  error?: string;
}

/**
 * The two gateways as a tiny load balancer would use them: round robin, and a connection that
 * is refused (nothing was sent) goes to the other one.
 */
export function gatewayClient(gateways: readonly string[], cookie: string) {
  let next = 0;
  const refused = (error: unknown) =>
    error instanceof Error &&
    (error.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';

  async function once(
    gateway: string,
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string>,
  ): Promise<Answer> {
    const response = await fetch(`${gateway}${path}`, {
      method,
      headers: {
        cookie,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      // Longer than the gateway's own wait for a service, so its 503 is what is seen.
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, for the report.
    }
    return { status: response.status, body: parsed };
  }

  return async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const first = next;
    next = (next + 1) % gateways.length;
    for (let attempt = 0; attempt < gateways.length; attempt += 1) {
      const gateway = gateways[(first + attempt) % gateways.length] ?? '';
      try {
        return await once(gateway, method, path, body, headers);
      } catch (error) {
        if (refused(error) && attempt + 1 < gateways.length) continue;
        const cause = error instanceof Error ? (error.cause ?? error) : error;
        return { status: 0, body: undefined, error: String(cause) };
      }
    }
    return { status: 0, body: undefined, error: 'no gateway' };
  };
}

export type GatewayCall = ReturnType<typeof gatewayClient>;

export const REQUEST_KINDS = [
  'webhook',
  'create task',
  'read task',
  'GET /me',
  'list MCP servers',
  'read workflow',
  'create chat',
  'post message',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** One request of the load. */
export interface Outcome {
  kind: RequestKind;
  /** Date.now() when it was sent. */
  sentAt: number;
  /** Date.now() when its answer (or its failure) came. */
  answeredAt: number;
  status: number;
  /** The Error body's code or the transport error, for the report. */
  detail?: string;
}

/** What the platform acknowledged, to be found again once the faults are over. */
export interface Acknowledged {
  /** eventIds of webhook requests answered 200 with `triggered: 1`. */
  eventIds: string[];
  tasks: { id: string; title: string }[];
  /** requestIds of messages answered 202: each started a turn. */
  turns: string[];
}

export interface LoadTarget {
  call: GatewayCall;
  workspaceId: string;
  workflowId: string;
  webhookId: string;
}

/** Requests a second of each stream of the load; a chat is two requests (the chat, its message). */
const RATES: Record<'webhook' | 'create task' | 'read task' | 'reads' | 'chat', number> = {
  webhook: 8,
  'create task': 3,
  'read task': 2,
  reads: 3,
  chat: 1,
};
const TICK_MS = 100;
/** Requests of one stream waiting for an answer at most: bounded load, not a pile-up in an outage. */
const MAX_IN_FLIGHT = 40;

export function mixedLoad(target: LoadTarget) {
  const { call } = target;
  const outcomes: Outcome[] = [];
  const acknowledged: Acknowledged = { eventIds: [], tasks: [], turns: [] };
  const inFlight = new Map<string, number>();
  const due = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  const runTag = randomBytes(4).toString('hex');
  let notSent = 0;
  let sequence = 0;
  let timer: NodeJS.Timeout | undefined;

  function record(kind: RequestKind, sentAt: number, answer: Answer): void {
    const code = (answer.body as { code?: unknown } | undefined)?.code;
    outcomes.push({
      kind,
      sentAt,
      answeredAt: Date.now(),
      status: answer.status,
      detail: answer.error ?? (typeof code === 'string' ? code : undefined),
    });
  }

  async function timed(
    kind: RequestKind,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer> {
    const sentAt = Date.now();
    const answer = await call(method, path, body, headers);
    record(kind, sentAt, answer);
    return answer;
  }

  const streams: Record<keyof typeof RATES, () => Promise<void>> = {
    async webhook() {
      const n = (sequence += 1);
      const answer = await timed(
        'webhook',
        'POST',
        `/webhooks/${target.webhookId}`,
        { order: n, nonce: randomBytes(6).toString('hex') },
        { 'idempotency-key': `cluster-${runTag}-${n}` },
      );
      const body = answer.body as { triggered?: number; eventId?: string } | undefined;
      if (answer.status === 200 && body?.triggered === 1 && body.eventId) {
        acknowledged.eventIds.push(body.eventId);
      }
    },
    async 'create task'() {
      const title = `cluster task ${(sequence += 1)}`;
      const answer = await timed('create task', 'POST', '/tasks', {
        workspaceId: target.workspaceId,
        title,
      });
      const id = (answer.body as { task?: { id?: string } } | undefined)?.task?.id;
      if (answer.status === 201 && id) acknowledged.tasks.push({ id, title });
    },
    async 'read task'() {
      const known = acknowledged.tasks;
      const task = known[Math.floor(Math.random() * known.length)];
      if (task) await timed('read task', 'GET', `/tasks/${task.id}`);
    },
    async reads() {
      const choice = (sequence += 1) % 3;
      if (choice === 0) await timed('GET /me', 'GET', '/me');
      else if (choice === 1) {
        await timed('list MCP servers', 'GET', `/mcp-registry?workspaceId=${target.workspaceId}`);
      } else await timed('read workflow', 'GET', `/workflows/${target.workflowId}`);
    },
    async chat() {
      const created = await timed('create chat', 'POST', '/ai-chat/conversations', {
        workspaceId: target.workspaceId,
        title: `cluster chat ${(sequence += 1)}`,
      });
      const chatId = (created.body as { conversation?: { id?: string } } | undefined)?.conversation
        ?.id;
      if (created.status !== 201 || !chatId) return;
      const posted = await timed(
        'post message',
        'POST',
        `/ai-chat/conversations/${chatId}/messages`,
        {
          content: 'Hello from the cluster test',
        },
      );
      const requestId = (posted.body as { requestId?: string } | undefined)?.requestId;
      if (posted.status === 202 && requestId) acknowledged.turns.push(requestId);
    },
  };

  function tick(): void {
    for (const [stream, rate] of Object.entries(RATES) as [keyof typeof RATES, number][]) {
      let owed = (due.get(stream) ?? 0) + (rate * TICK_MS) / 1000;
      for (; owed >= 1; owed -= 1) {
        if ((inFlight.get(stream) ?? 0) >= MAX_IN_FLIGHT) {
          notSent += 1;
          continue;
        }
        inFlight.set(stream, (inFlight.get(stream) ?? 0) + 1);
        const request = streams[stream]().finally(() => {
          inFlight.set(stream, (inFlight.get(stream) ?? 1) - 1);
          pending.delete(request);
        });
        pending.add(request);
      }
      due.set(stream, owed);
    }
  }

  return {
    outcomes,
    acknowledged,
    notSent: () => notSent,
    start() {
      timer = setInterval(tick, TICK_MS);
    },
    /** Stops sending and waits for the requests still out. */
    async stop() {
      clearInterval(timer);
      await Promise.all([...pending]);
    },
  };
}
