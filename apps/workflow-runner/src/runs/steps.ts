import type { z } from 'zod';
import {
  AppError,
  MCP_SUBJECTS,
  STEP_SETTINGS,
  STEP_SUBJECTS,
  type ActionStepType,
  type StepType,
  BUS_APIS,
  RUN_CANCELLED,
} from '@wap/contracts';
import type { CancelToolCall, RetryableFailure } from '@wap/contracts';
import { EgressBlockedError, refusedBeforeSending } from '@wap/egress';
import { BusTimeoutError, encodeJson, NoRespondersError, type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import { retryAfterMsOf } from './step-policy';

/** What one attempt at a step came to. */
export type StepOutcome =
  | { kind: 'succeeded'; output: unknown }
  /**
   * `refundable`: the step failed before anything left the platform (its settings, a refused
   * address, a service that refused or was not there), so a paid step's charge is given back.
   */
  | {
      kind: 'failed';
      error: string;
      output?: unknown;
      refundable?: true;
      /** The kind of failure, when it is one a step's `retry` may answer. */
      failure?: RetryableFailure;
      /** A 429's `Retry-After`, in milliseconds from now. */
      retryAfterMs?: number;
      /** The run was cancelled while the step ran: it was stopped. */
      cancelled?: true;
    }
  /** A delay that has not ended: the run sleeps in the scheduler table until `at`. */
  | { kind: 'wait_until'; at: Date }
  /** An approval: the run pauses (waiting_approval) until a reviewer decides. */
  | { kind: 'wait_approval'; reviewerIds: string[]; message: string | null };

/** The fetch the http_request step uses: the SSRF-guarded one in production. */
export type HttpFetch = (url: string, init: RequestInit) => Promise<Response>;

export interface StepContext {
  workspaceId: string;
  /** Whom the run acts as (the workflow's `runs_as`): tools and tables are used with this user's rights. */
  actingUserId: string;
  /** When this step first started (a resumed delay counts from here). */
  startedAt: Date;
  now: Date;
  /** The step's own `timeoutMs`, per attempt; absent: the executor's limit for the type. */
  timeoutMs?: number;
  /** Sent as `Idempotency-Key` (http_request) or `_meta.idempotencyKey` (mcp_tool). */
  idempotencyKey: string;
  /** Aborted when the run is cancelled: the step stops what it is doing. */
  signal: AbortSignal;
}

/** What a step stopped by its run's cancel comes to. */
function cancelledStep(): StepOutcome {
  return { kind: 'failed', error: RUN_CANCELLED, cancelled: true };
}

/**
 * Waits for a bus step's answer, or for the run's cancel: the other service is not waited for
 * once the run is cancelled (what it does meanwhile is its own).
 */
async function unlessCancelled(
  signal: AbortSignal,
  answer: () => Promise<StepOutcome>,
): Promise<StepOutcome> {
  if (signal.aborted) return cancelledStep();
  let onAbort: () => void = () => undefined;
  const cancelled = new Promise<StepOutcome>((resolve) => {
    onAbort = () => resolve(cancelledStep());
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([answer(), cancelled]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

export interface StepExecutorDeps {
  bus: Bus;
  httpFetch: HttpFetch;
  /** Longest wait for an HTTP response, in milliseconds. */
  httpTimeoutMs: number;
  /** Response bodies are kept up to this many bytes (the rest is cut off). */
  maxResponseBytes: number;
  /** Longest wait for a bus step (tool, table, assistant), in milliseconds. */
  busTimeoutMs: number;
}

function parseSettings<Type extends StepType>(
  type: Type,
  settings: unknown,
): { ok: true; value: z.infer<(typeof STEP_SETTINGS)[Type]> } | { ok: false; error: string } {
  const parsed = STEP_SETTINGS[type].safeParse(settings);
  if (parsed.success)
    return { ok: true, value: parsed.data as z.infer<(typeof STEP_SETTINGS)[Type]> };
  const issues = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`)
    .join('; ');
  return { ok: false, error: `Invalid settings once templates were filled: ${issues}` };
}

/** A failure before anything left the platform: a paid step's charge is refunded. */
function refused(error: string, failure?: RetryableFailure): StepOutcome {
  return { kind: 'failed', error, refundable: true, ...(failure ? { failure } : {}) };
}

/**
 * Whether a service's refusal means it did nothing: a client error (the table does not exist,
 * the tool is not the caller's), or an assistant without a model. A 5xx may come after an effect
 * (a provider that failed mid-answer), so it is not refunded.
 */
function refusedByService(error: AppError): boolean {
  return error.status < 500 || error.code === 'MODEL_NOT_CONFIGURED';
}

async function readBody(
  response: Response,
  limit: number,
): Promise<{ text: string; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    if (size > limit) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), truncated };
}

/** Turns a bus failure of a step that calls another service into a step error a user can act on. */
function busFailure(subject: string, what: string, error: unknown): StepOutcome {
  if (error instanceof NoRespondersError) {
    return refused(`${what} is not available: no service answers ${subject}`, 'network');
  }
  if (error instanceof BusTimeoutError) {
    return {
      kind: 'failed',
      error: `${what} did not answer in time (${subject})`,
      failure: 'timeout',
    };
  }
  if (error instanceof AppError) {
    const message = `${what} failed: ${error.message}`;
    if (refusedByService(error)) {
      // A service that is busy did nothing and may do it in a while.
      return refused(message, error.status === 429 ? 'rate_limited' : undefined);
    }
    const failure = failureOfStatus(error.status);
    return { kind: 'failed', error: message, ...(failure ? { failure } : {}) };
  }
  throw error;
}

/** What a service's or a server's HTTP status says about retrying, when it says anything. */
function failureOfStatus(status: number): RetryableFailure | undefined {
  if (status === 429) return 'rate_limited';
  if (status === 504 || status === 408) return 'timeout';
  if (status >= 500) return 'server_error';
  return undefined;
}

/** Why a request got no answer: refused by the egress guard, timed out, or the network failed. */
function fetchFailure(error: unknown, timeoutMs: number): StepOutcome {
  if (error instanceof EgressBlockedError) {
    const reason = `Request refused: ${error.message}`;
    return refusedBeforeSending(error) ? refused(reason) : { kind: 'failed', error: reason };
  }
  // AbortSignal.timeout rejects with a DOMException, which is not always an Error instance.
  const name = typeof error === 'object' && error !== null && 'name' in error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { kind: 'failed', error: `Request timed out after ${timeoutMs} ms`, failure: 'timeout' };
  }
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof EgressBlockedError) {
    const reason = `Request refused: ${cause.message}`;
    return refusedBeforeSending(error) ? refused(reason) : { kind: 'failed', error: reason };
  }
  const reason = `Request failed: ${cause instanceof Error ? cause.message : String(cause)}`;
  // A connection refused or reset: the server may be back in a while.
  return refusedBeforeSending(error)
    ? refused(reason, 'network')
    : { kind: 'failed', error: reason, failure: 'network' };
}

/** Executes one step with its filled-in settings; failures of the step are outcomes, not throws. */
/* eslint-disable-next-line max-lines-per-function --
  one short function per step type over the clients they share */
export function createStepExecutor(deps: StepExecutorDeps) {
  async function httpRequest(settings: unknown, context: StepContext): Promise<StepOutcome> {
    const parsed = parseSettings('http_request', settings);
    if (!parsed.ok) return refused(parsed.error);
    const { method, url, headers = {}, body } = parsed.value;
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refused(`Invalid URL: ${url}`);
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return refused(`Only http and https URLs can be called: ${target.protocol}`);
    }
    const requestHeaders = new Headers(headers);
    // A key the workflow sets itself is the one the receiver expects: it is kept.
    if (!requestHeaders.has('idempotency-key')) {
      requestHeaders.set('idempotency-key', context.idempotencyKey);
    }
    let requestBody: string | undefined;
    if (body !== undefined && body !== '' && method !== 'GET' && method !== 'HEAD') {
      if (typeof body === 'string') {
        requestBody = body;
      } else {
        requestBody = JSON.stringify(body);
        if (!requestHeaders.has('content-type'))
          requestHeaders.set('content-type', 'application/json');
      }
    }
    const timeoutMs = context.timeoutMs ?? deps.httpTimeoutMs;
    let response: Response;
    let text: string;
    let truncated: boolean;
    try {
      response = await deps.httpFetch(target.toString(), {
        method,
        headers: requestHeaders,
        body: requestBody,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), context.signal]),
      });
      // The timeout is the attempt's: a body that trickles in counts against it too.
      ({ text, truncated } = await readBody(response, deps.maxResponseBytes));
    } catch (error) {
      return context.signal.aborted ? cancelledStep() : fetchFailure(error, timeoutMs);
    }
    let responseBody: unknown = text;
    if (!truncated && (response.headers.get('content-type') ?? '').includes('json')) {
      try {
        responseBody = JSON.parse(text);
      } catch {
        responseBody = text;
      }
    }
    const output = {
      status: response.status,
      headers: Object.fromEntries(response.headers.entries()),
      body: responseBody,
      ...(truncated ? { truncated: true } : {}),
    };
    if (response.status >= 400) {
      const failure = failureOfStatus(response.status);
      const retryAfterMs =
        failure === 'rate_limited'
          ? retryAfterMsOf(response.headers.get('retry-after'), context.now)
          : undefined;
      return {
        kind: 'failed',
        error: `The server answered HTTP ${response.status}`,
        output,
        ...(failure ? { failure } : {}),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      };
    }
    return { kind: 'succeeded', output };
  }

  function delay(settings: unknown, context: StepContext): StepOutcome {
    const parsed = parseSettings('delay', settings);
    if (!parsed.ok) return refused(parsed.error);
    const endsAt = new Date(context.startedAt.getTime() + parsed.value.seconds * 1000);
    if (context.now.getTime() >= endsAt.getTime()) {
      return { kind: 'succeeded', output: { waited_seconds: parsed.value.seconds } };
    }
    return { kind: 'wait_until', at: endsAt };
  }

  async function mcpTool(settings: unknown, context: StepContext): Promise<StepOutcome> {
    const parsed = parseSettings('mcp_tool', settings);
    if (!parsed.ok) return refused(parsed.error);
    if (context.signal.aborted) return cancelledStep();
    // A cancel tells the registry, which aborts the call and sends the server
    // notifications/cancelled.
    const callId = context.idempotencyKey;
    const onAbort = () => {
      const message: CancelToolCall = { callId };
      deps.bus.publish(MCP_SUBJECTS.cancelToolCall, encodeJson(message));
    };
    context.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const reply = await callApi(
        deps.bus,
        BUS_APIS.callTool,
        {
          workspaceId: context.workspaceId,
          userId: context.actingUserId,
          ...parsed.value,
          timeoutMs: context.timeoutMs ?? deps.busTimeoutMs,
          idempotencyKey: context.idempotencyKey,
          callId,
        },
        // The registry's own timeout fires first and answers; this one only guards a lost reply.
        { timeoutMs: (context.timeoutMs ?? deps.busTimeoutMs) + 5_000 },
      );
      if (context.signal.aborted) return cancelledStep();
      if (reply.isError) {
        return { kind: 'failed', error: 'The tool reported an error', output: reply };
      }
      return { kind: 'succeeded', output: reply };
    } catch (error) {
      if (context.signal.aborted) return cancelledStep();
      return busFailure(MCP_SUBJECTS.callTool, 'The MCP tool service', error);
    } finally {
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  async function tableRow(settings: unknown, context: StepContext): Promise<StepOutcome> {
    const parsed = parseSettings('table_row', settings);
    if (!parsed.ok) return refused(parsed.error);
    return unlessCancelled(context.signal, () => writeRow(parsed.value, context));
  }

  async function writeRow(
    value: z.infer<typeof STEP_SETTINGS.table_row>,
    context: StepContext,
  ): Promise<StepOutcome> {
    try {
      const reply = await callApi(
        deps.bus,
        BUS_APIS.tableRow,
        { workspaceId: context.workspaceId, userId: context.actingUserId, ...value },
        { timeoutMs: context.timeoutMs ?? deps.busTimeoutMs },
      );
      return { kind: 'succeeded', output: reply };
    } catch (error) {
      return busFailure(STEP_SUBJECTS.tableRow, 'The table service', error);
    }
  }

  async function assistantPrompt(settings: unknown, context: StepContext): Promise<StepOutcome> {
    const parsed = parseSettings('assistant_prompt', settings);
    if (!parsed.ok) return refused(parsed.error);
    return unlessCancelled(context.signal, () => prompt(parsed.value, context));
  }

  async function prompt(
    value: z.infer<typeof STEP_SETTINGS.assistant_prompt>,
    context: StepContext,
  ): Promise<StepOutcome> {
    try {
      const reply = await callApi(
        deps.bus,
        BUS_APIS.assistantPrompt,
        { workspaceId: context.workspaceId, userId: context.actingUserId, ...value },
        { timeoutMs: context.timeoutMs ?? deps.busTimeoutMs },
      );
      return { kind: 'succeeded', output: reply };
    } catch (error) {
      return busFailure(STEP_SUBJECTS.assistantPrompt, 'The assistant', error);
    }
  }

  function approval(settings: unknown): StepOutcome {
    const parsed = parseSettings('approval', settings);
    if (!parsed.ok) return refused(parsed.error);
    return {
      kind: 'wait_approval',
      reviewerIds: parsed.value.reviewerIds,
      message: parsed.value.message ?? null,
    };
  }

  return {
    async execute(
      type: ActionStepType,
      settings: unknown,
      context: StepContext,
    ): Promise<StepOutcome> {
      switch (type) {
        case 'http_request':
          return httpRequest(settings, context);
        case 'delay':
          return delay(settings, context);
        case 'mcp_tool':
          return mcpTool(settings, context);
        case 'table_row':
          return tableRow(settings, context);
        case 'assistant_prompt':
          return assistantPrompt(settings, context);
        case 'approval':
          return approval(settings);
        default:
          return assertNever(type);
      }
    },
  };
}

function assertNever(value: never): never {
  throw new Error(`unexpected step type ${String(value)}`);
}

export type StepExecutor = ReturnType<typeof createStepExecutor>;
