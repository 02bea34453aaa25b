import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
} from 'openai/resources/chat/completions';
import { z } from 'zod';

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Sent as the call's id; a fresh `call_<hex>` when absent. */
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string is sent as it is, so it can also be JSON that is not valid. */
  arguments: Record<string, unknown> | string;
}

/**
 * How a reply stops before its end. In a stream, `afterChunks` `data:` chunk lines are sent first
 * (the first one carries the role); without `stream`, nothing of the completion is sent.
 */
export interface StreamInterruption {
  afterChunks: number;
  /**
   * `hang`: send nothing more and keep the response open until the client closes it (or the
   * provider stops); `malformed`: send a `data:` line (without `stream`: a body) that is not JSON,
   * then end the response; `drop`: destroy the socket.
   */
  how: 'hang' | 'malformed' | 'drop';
}

/** An OpenAI error answer; `type` defaults to `server_error` for 5xx, else `invalid_request_error`. */
export interface ScriptedHttpError {
  status: number;
  message?: string;
  type?: string;
  code?: string | null;
}

/** One answer of the scripted model. */
export interface ScriptedReply {
  /** Content pieces, one chunk each; joined they are the message content. */
  text?: string[];
  /** Streamed after the text, each call's arguments split over several chunks. */
  toolCalls?: ScriptedToolCall[];
  /** Milliseconds between two chunks of a stream; none when absent. */
  chunkDelayMs?: number;
  interrupt?: StreamInterruption;
  /** When set, the request is answered with this error and the other fields are not used. */
  httpError?: ScriptedHttpError;
}

/** A chat completion request the provider accepted (authenticated, JSON, with model and messages). */
export interface RecordedRequest {
  /** 1-based, in the order the requests arrived. */
  index: number;
  /** The JSON body as the client sent it; only `model` and `messages` are checked. */
  body: ChatCompletionCreateParams;
  headers: IncomingHttpHeaders;
}

/** A response the client closed before the provider ended it. */
export interface ClientClose {
  requestIndex: number;
  /** `performance.now()` when the close was seen. */
  at: number;
}

/** A local OpenAI-compatible Chat Completions server that answers with scripted replies. */
export interface ChatCompletionsProvider {
  /** `http://127.0.0.1:<port>/v1`, the `baseURL` of an OpenAI client. */
  baseUrl: string;
  /** Queues replies; each request takes the next one. With nothing queued, the fallback answers. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Chooses every reply from its request (concurrent turns, benchmarks); the queue is then unused. */
  respondWith(decide: (request: RecordedRequest) => ScriptedReply): void;
  /** Every accepted request, in order of arrival. */
  requests: RecordedRequest[];
  /** Resolves when the n-th request (1-based) has arrived. */
  waitForRequest(n: number): Promise<RecordedRequest>;
  /** Responses the client closed before their end; closes made by `stop()` are not listed. */
  closedEarly: ClientClose[];
  /** Resolves with the `at` of the early close of request n (1-based). */
  waitForClientClose(n: number): Promise<number>;
  /** Stops listening and closes every connection, including open streams and idle keep-alives. */
  stop(): Promise<void>;
}

// Real providers send a call's arguments in many small pieces; three are enough for a client that
// does not reassemble them by index to get them wrong.
const ARGUMENT_PIECES = 3;

const RequestBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string() })).min(1),
  stream: z.boolean().nullish(),
});

type FinishReason = ChatCompletionChunk.Choice['finish_reason'];
type ChunkChoice = Pick<ChatCompletionChunk.Choice, 'delta' | 'finish_reason'>;

interface ToolCallToSend {
  id: string;
  name: string;
  arguments: string;
}

/** A reply of `text` streamed word by word (each piece starts at a whitespace). */
export function textReply(text: string): ScriptedReply {
  return { text: text.split(/(?=\s)/) };
}

/** A reply that calls one tool. */
export function toolCallReply(name: string, args: Record<string, unknown> | string): ScriptedReply {
  return { toolCalls: [{ name, arguments: args }] };
}

export async function startChatCompletionsProvider(
  options: { apiKey?: string; fallback?: ScriptedReply } = {},
): Promise<ChatCompletionsProvider> {
  const queue: ScriptedReply[] = [];
  let decide: ((request: RecordedRequest) => ScriptedReply) | undefined;
  const requests: RecordedRequest[] = [];
  const closedEarly: ClientClose[] = [];
  // Each pending wait checks its condition again whenever a request or a close is recorded.
  const pendingWaits = new Set<() => boolean>();
  let stopping = false;
  let stopped: Promise<void> | undefined;

  function recorded(): void {
    for (const settled of pendingWaits) if (settled()) pendingWaits.delete(settled);
  }

  function waitUntil<T>(find: () => T | undefined): Promise<T> {
    return new Promise((resolve) => {
      const settled = (): boolean => {
        const found = find();
        if (found === undefined) return false;
        resolve(found);
        return true;
      };
      if (!settled()) pendingWaits.add(settled);
    });
  }

  function checkPosition(n: number): void {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Requests count from 1, got ${n}`);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      sendJson(
        res,
        401,
        errorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key'),
      );
      return;
    }
    const path = new URL(req.url ?? '/', 'http://provider').pathname;
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(
        res,
        404,
        errorBody(
          `Unknown request URL: ${req.method} ${path}.`,
          'invalid_request_error',
          'unknown_url',
        ),
      );
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      sendJson(
        res,
        400,
        errorBody(
          'We could not parse the JSON body of your request.',
          'invalid_request_error',
          null,
        ),
      );
      return;
    }
    const checked = RequestBody.safeParse(body);
    if (!checked.success) {
      sendJson(res, 400, errorBody(z.prettifyError(checked.error), 'invalid_request_error', null));
      return;
    }
    const request: RecordedRequest = {
      index: requests.length + 1,
      body: body as ChatCompletionCreateParams,
      headers: req.headers,
    };
    requests.push(request);
    recorded();

    const reply = decide ? decide(request) : (queue.shift() ?? options.fallback);
    if (!reply) {
      // Not retryable, so an unscripted request fails once, with this message, in the client.
      sendJson(
        res,
        500,
        errorBody(
          `No reply scripted for request ${request.index}: enqueue one, call respondWith or start the provider with a fallback.`,
          'server_error',
          null,
        ),
        { 'x-should-retry': 'false' },
      );
      return;
    }
    if (reply.httpError) {
      const { status, message, type, code } = reply.httpError;
      sendJson(
        res,
        status,
        errorBody(
          message ?? `Scripted error ${status}`,
          type ?? (status >= 500 ? 'server_error' : 'invalid_request_error'),
          code ?? null,
        ),
      );
      return;
    }

    const closed = new AbortController();
    let droppedByProvider = false;
    res.once('close', () => {
      if (!res.writableFinished && !droppedByProvider && !stopping) {
        closedEarly.push({ requestIndex: request.index, at: performance.now() });
        recorded();
      }
      closed.abort();
    });
    const answer: Answer = {
      res,
      reply,
      closed: closed.signal,
      async drop() {
        // The chunks already written reach the client first, as they would from a real provider.
        const socket = res.socket;
        if (socket && socket.writableLength > 0) {
          await new Promise((resolve) => socket.write('', resolve));
        }
        droppedByProvider = true;
        res.destroy();
      },
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      model: checked.data.model,
      toolCalls: (reply.toolCalls ?? []).map((call) => ({
        id: call.id ?? `call_${randomBytes(12).toString('hex')}`,
        name: call.name,
        arguments:
          typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      })),
    };
    if (checked.data.stream === true) await stream(answer);
    else await complete(answer);
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A throwing respondWith callback is a bug in the test: the client gets its message once.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      sendJson(res, 500, errorBody(`Test provider failed: ${message}`, 'server_error', null), {
        'x-should-retry': 'false',
      });
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    enqueue(...replies) {
      queue.push(...replies);
    },
    respondWith(chooser) {
      decide = chooser;
    },
    requests,
    waitForRequest(n) {
      checkPosition(n);
      return waitUntil(() => requests[n - 1]);
    },
    closedEarly,
    waitForClientClose(n) {
      checkPosition(n);
      return waitUntil(() => closedEarly.find((close) => close.requestIndex === n)?.at);
    },
    stop() {
      // A test may stop the provider itself before its afterEach does.
      stopped ??= new Promise<void>((resolve, reject) => {
        stopping = true;
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}

/** One reply being written to one response. */
interface Answer {
  res: ServerResponse;
  reply: ScriptedReply;
  /** Aborted when the response closes, whoever closed it. */
  closed: AbortSignal;
  /** Destroys the socket once what was written has been flushed. */
  drop(): Promise<void>;
  id: string;
  created: number;
  model: string;
  toolCalls: ToolCallToSend[];
}

async function stream(answer: Answer): Promise<void> {
  const { res, reply, closed } = answer;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // Headers go out now: the client's `create()` resolves on them, before the first chunk.
  res.flushHeaders();
  const choices = streamedChoices(reply.text ?? [], answer.toolCalls);
  const sent = reply.interrupt
    ? Math.min(Math.max(reply.interrupt.afterChunks, 0), choices.length)
    : choices.length;
  for (const [position, choice] of choices.slice(0, sent).entries()) {
    if (position > 0 && reply.chunkDelayMs) await pause(reply.chunkDelayMs, closed);
    if (closed.aborted) return;
    const chunk: ChatCompletionChunk = {
      id: answer.id,
      object: 'chat.completion.chunk',
      created: answer.created,
      model: answer.model,
      choices: [{ index: 0, ...choice, logprobs: null }],
    };
    await write(res, `data: ${JSON.stringify(chunk)}\n\n`, closed);
  }
  if (closed.aborted) return;
  if (!reply.interrupt) {
    res.end('data: [DONE]\n\n');
    return;
  }
  if (reply.chunkDelayMs) await pause(reply.chunkDelayMs, closed);
  if (closed.aborted) return;
  await interrupt(answer, reply.interrupt, 'data: {"id": "chatcmpl-\n\n');
}

async function complete(answer: Answer): Promise<void> {
  const { res, reply } = answer;
  if (reply.interrupt) {
    await interrupt(answer, reply.interrupt, '{"id": "chatcmpl-');
    return;
  }
  const text = reply.text ?? [];
  const completion: ChatCompletion = {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text.length > 0 ? text.join('') : null,
          refusal: null,
          ...(answer.toolCalls.length > 0 && {
            tool_calls: answer.toolCalls.map((call) => ({
              id: call.id,
              type: 'function' as const,
              function: { name: call.name, arguments: call.arguments },
            })),
          }),
        },
        finish_reason: finishReason(answer.toolCalls),
        logprobs: null,
      },
    ],
  };
  sendJson(res, 200, completion);
}

async function interrupt(
  answer: Answer,
  { how }: StreamInterruption,
  notJson: string,
): Promise<void> {
  switch (how) {
    case 'hang':
      await untilAborted(answer.closed);
      return;
    case 'malformed':
      if (!answer.res.headersSent)
        answer.res.writeHead(200, { 'content-type': 'application/json' });
      answer.res.end(notJson);
      return;
    case 'drop':
      await answer.drop();
      return;
    default:
      assertNever(how);
  }
}

/** The deltas of a stream: role, text pieces, each tool call (header, then argument pieces), finish. */
function streamedChoices(text: string[], toolCalls: ToolCallToSend[]): ChunkChoice[] {
  const choices: ChunkChoice[] = [
    { delta: { role: 'assistant', content: text.length > 0 ? '' : null }, finish_reason: null },
  ];
  for (const piece of text) choices.push({ delta: { content: piece }, finish_reason: null });
  toolCalls.forEach((call, index) => {
    choices.push({
      delta: {
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      },
      finish_reason: null,
    });
    for (const piece of splitIntoPieces(call.arguments, ARGUMENT_PIECES)) {
      choices.push({
        delta: { tool_calls: [{ index, function: { arguments: piece } }] },
        finish_reason: null,
      });
    }
  });
  choices.push({ delta: {}, finish_reason: finishReason(toolCalls) });
  return choices;
}

function finishReason(toolCalls: ToolCallToSend[]): NonNullable<FinishReason> {
  return toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

/** At most `count` pieces of nearly equal length; code points are never split. */
function splitIntoPieces(text: string, count: number): string[] {
  const characters = Array.from(text);
  const size = Math.ceil(characters.length / count);
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    pieces.push(characters.slice(start, start + size).join(''));
  }
  return pieces;
}

function errorBody(
  message: string,
  type: string,
  code: string | null,
): { error: { message: string; type: string; code: string | null } } {
  return { error: { message, type, code } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes, and waits for the socket to drain when its buffer is full, unless the response closes. */
async function write(res: ServerResponse, data: string, closed: AbortSignal): Promise<void> {
  if (res.write(data)) return;
  await once(res, 'drain', { signal: closed }).catch(() => undefined);
}

/** Sleeps `ms`, or less when the response closes. */
async function pause(ms: number, closed: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal: closed }).catch(() => undefined);
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

function assertNever(value: never): never {
  throw new Error(`Unexpected value: ${String(value)}`);
}
