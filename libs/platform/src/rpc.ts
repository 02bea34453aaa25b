import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  AppError,
  BusErrorReply,
  ServiceReply,
  ServiceRequest,
  isErrorCode,
  type OperationsOf,
  type RouteSpec,
  type ServiceName,
} from '@wap/contracts';
import type { Bus, BusReply, MessageHeaders, Subscription } from './platform';

const ERROR_HEADER = 'wap-error';
const tracer = trace.getTracer('@wap/platform');
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const headerSetter: TextMapSetter<MessageHeaders> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};
const headerGetter: TextMapGetter<MessageHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** Writes the active trace context (traceparent, tracestate) into message headers. */
export function injectTraceHeaders(headers: MessageHeaders = {}): MessageHeaders {
  propagation.inject(context.active(), headers, headerSetter);
  return headers;
}

/** Runs `fn` inside a consumer span whose parent is the trace context carried by `headers`. */
export function withTraceFromHeaders<T>(
  headers: MessageHeaders,
  spanName: string,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(context.active(), headers, headerGetter);
  return context.with(parent, () =>
    tracer.startActiveSpan(spanName, { kind: SpanKind.CONSUMER }, async (span) => {
      try {
        return await fn();
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    }),
  );
}

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(data: Uint8Array): unknown {
  return JSON.parse(decoder.decode(data));
}

function errorReply(error: unknown, subject: string, logger: Logger): BusReply {
  let body: BusErrorReply;
  if (error instanceof AppError) {
    if (error.status >= 500) logger.warn({ subject, code: error.code }, error.message);
    body = {
      error: {
        code: error.code,
        message: error.message,
        details: error.details,
        exposeCode: error.exposeCode,
      },
    };
  } else {
    logger.error({ err: error, subject }, 'unexpected error in bus handler');
    body = { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } };
  }
  return { data: encodeJson(body), headers: { [ERROR_HEADER]: '1' } };
}

function toAppError(reply: BusErrorReply): AppError {
  const { code, message, details, exposeCode } = reply.error;
  return new AppError(isErrorCode(code) ? code : 'INTERNAL_ERROR', message, {
    details,
    exposeCode,
  });
}

export interface ServeOptions {
  /** Queue group: replicas of one service share the requests. */
  queue: string;
  logger: Logger;
}

/**
 * Serves a JSON request/reply subject: the request is validated with `requestSchema`
 * (a bad payload is a VALIDATION_ERROR), an AppError thrown by the handler travels back
 * typed, anything else is logged with its stack and answered as INTERNAL_ERROR.
 */
export function serveApi<Schema extends z.ZodType, Reply>(
  bus: Bus,
  subject: string,
  requestSchema: Schema,
  handler: (request: z.infer<Schema>) => Promise<Reply>,
  options: ServeOptions,
): Subscription {
  return bus.serve(
    subject,
    (message) =>
      withTraceFromHeaders(message.headers, subject, async () => {
        try {
          const parsed = requestSchema.safeParse(decodeJson(message.data));
          if (!parsed.success) {
            throw new AppError('VALIDATION_ERROR', 'Invalid request', {
              details: parsed.error.issues,
            });
          }
          return { data: encodeJson(await handler(parsed.data)) };
        } catch (error) {
          return errorReply(error, subject, options.logger);
        }
      }),
    { queue: options.queue },
  );
}

export interface CallOptions {
  timeoutMs: number;
  headers?: MessageHeaders;
}

/**
 * Calls a JSON subject and validates the reply; a typed error reply is rethrown as the same
 * AppError. Bus failures (NoRespondersError, BusTimeoutError) propagate unchanged.
 */
export async function callApi<Schema extends z.ZodType>(
  bus: Bus,
  subject: string,
  payload: unknown,
  replySchema: Schema,
  options: CallOptions,
): Promise<z.infer<Schema>> {
  const reply = await tracer.startActiveSpan(subject, { kind: SpanKind.PRODUCER }, async (span) => {
    try {
      return await bus.request(subject, encodeJson(payload), {
        timeoutMs: options.timeoutMs,
        headers: injectTraceHeaders({ ...options.headers }),
      });
    } finally {
      span.end();
    }
  });
  const body = decodeJson(reply.data);
  if (reply.headers[ERROR_HEADER]) throw toAppError(BusErrorReply.parse(body));
  return replySchema.parse(body);
}

/** Handles one REST route forwarded by the gateway. */
export type RouteHandler = (request: ServiceRequest) => Promise<ServiceReply>;

/**
 * Serves every route `owner` owns. The handler map is typed from the route table, so a route
 * without a handler (or a handler for a route owned elsewhere) does not compile.
 */
export function serveRoutes<Routes extends readonly RouteSpec[], Owner extends ServiceName>(
  bus: Bus,
  routes: Routes,
  owner: Owner,
  handlers: Record<OperationsOf<Routes, Owner>, RouteHandler>,
  options: ServeOptions,
): Subscription[] {
  const byOperation = handlers as Record<string, RouteHandler>;
  return routes
    .filter((route) => route.owner === owner)
    .map((route) => {
      const handler = byOperation[route.operationId];
      if (!handler) throw new Error(`no handler for route ${route.operationId}`);
      return serveApi(bus, route.subject, ServiceRequest, handler, options);
    });
}

/** Calls a route subject the way the gateway does, returning the service's reply. */
export function callRoute(
  bus: Bus,
  subject: string,
  request: ServiceRequest,
  options: CallOptions,
): Promise<ServiceReply> {
  return callApi(bus, subject, request, ServiceReply, options);
}
