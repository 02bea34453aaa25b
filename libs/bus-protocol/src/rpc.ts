import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  AppError,
  BusErrorReply,
  ForwardedRequest,
  RawRequestMeta,
  REQUEST_BODIES_BUCKET,
  ServiceReply,
  isErrorCode,
  type Actor,
  type ParkedBody,
  type ServiceRequest,
  type RawServiceRequest,
  type RouteSpec,
  type ServiceName,
  type BusApi,
} from '@wap/contracts';
import type {
  Bus,
  BusCaller,
  BusMessage,
  BusReply,
  IdSource,
  MessageHeaders,
  ObjectStore,
  Subscription,
} from '@wap/platform';
import { decodeJson, encodeJson, isDatabaseUnavailable, NoRespondersError } from '@wap/platform';
import { parseRequestPart } from './route-requests';

const ERROR_HEADER = 'wap-error';
const tracer = trace.getTracer('@wap/platform');

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

/**
 * The active trace context as a W3C `traceparent`, or null outside any span. Work that outlives
 * the message asking for it (a run row, executed later by any replica) keeps this to continue
 * the same trace with `continueTrace`.
 */
export function activeTraceparent(): string | null {
  return injectTraceHeaders()['traceparent'] ?? null;
}

function runInSpanUnder<T>(
  parent: Context,
  spanName: string,
  options: { kind: SpanKind; attributes?: Attributes },
  fn: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(spanName, options, parent, async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` inside a consumer span whose parent is the trace context carried by `headers`. A
 * message's only parent is what its headers say, never the context its consumer loop or its
 * in-process publisher happened to be in; without trace headers it starts a trace.
 */
export function withTraceFromHeaders<T>(
  headers: MessageHeaders,
  spanName: string,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return runInSpanUnder(parent, spanName, { kind: SpanKind.CONSUMER }, fn);
}

/**
 * Runs `fn` inside a span that continues the trace of a `traceparent` kept by
 * `activeTraceparent` (a new trace when it is null), whatever context is active: a timer or a
 * batch of other requests' work must not become its parent.
 */
export function continueTrace<T>(
  traceparent: string | null,
  spanName: string,
  attributes: Attributes,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = traceparent
    ? propagation.extract(ROOT_CONTEXT, { traceparent }, headerGetter)
    : ROOT_CONTEXT;
  return runInSpanUnder(parent, spanName, { kind: SpanKind.INTERNAL, attributes }, fn);
}

/**
 * Values of the error header: `user` for a refusal of the request (a 4xx), `internal` for a
 * failure of the service; any value marks an error reply, the kind feeds the bus metrics.
 */
const USER_ERROR = 'user';
const INTERNAL_ERROR = 'internal';

/** How a reply of serveApi or serveRoutes went, read from its headers. */
export function replyOutcome(headers: MessageHeaders | undefined): 'ok' | 'user_error' | 'error' {
  const kind = headers?.[ERROR_HEADER];
  if (!kind) return 'ok';
  return kind === USER_ERROR ? 'user_error' : 'error';
}

function errorReply(error: unknown, subject: string, logger: Logger): BusReply {
  if (isDatabaseUnavailable(error)) {
    // A restart or a lost connection of PostgreSQL: the caller may retry, nothing is broken.
    logger.warn({ subject, reason: (error as Error).message }, 'database unavailable');
    return errorReply(
      new AppError(
        'SERVICE_UNAVAILABLE',
        'A server this service needs is unavailable; please retry',
      ),
      subject,
      logger,
    );
  }
  let body: BusErrorReply;
  let kind = INTERNAL_ERROR;
  if (error instanceof AppError) {
    if (error.status < 500) kind = USER_ERROR;
    // User errors are normal traffic: logged at info with their code, never with a body.
    if (error.status >= 500) logger.warn({ subject, code: error.code }, error.message);
    else logger.info({ subject, code: error.code, status: error.status }, error.message);
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
  return { data: encodeJson(body), headers: { [ERROR_HEADER]: kind } };
}

/**
 * The answer to a request whose caller could not be established: the same reply whatever the
 * reason, so that a prober learns nothing from it.
 */
export function refusalReply(): BusReply {
  const body: BusErrorReply = {
    error: { code: 'UNAUTHORIZED', message: 'The bus request was refused' },
  };
  return { data: encodeJson(body), headers: { [ERROR_HEADER]: USER_ERROR } };
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
 * Serves a bus API: the request is validated with the API's request schema (a bad payload is a
 * VALIDATION_ERROR), an AppError thrown by the handler travels back typed, anything else is
 * logged with its stack and answered as INTERNAL_ERROR. The handler's answer is typed by the
 * API's reply schema, which its callers parse it with.
 */
export function serveApi<Request extends z.ZodType, Reply extends z.ZodType>(
  bus: Bus,
  api: BusApi<Request, Reply>,
  handler: (request: z.infer<Request>, caller: BusCaller) => Promise<z.input<Reply>>,
  options: ServeOptions,
): Subscription {
  return serveMessages(
    bus,
    api.subject,
    async (message, caller) => {
      const parsed = api.request.safeParse(decodeJson(message.data));
      if (!parsed.success) {
        throw new AppError('VALIDATION_ERROR', 'Invalid request', {
          details: parsed.error.issues,
        });
      }
      return handler(parsed.data, caller);
    },
    options,
  );
}

/**
 * Serves a subject whose handler answers JSON; failures become typed error replies. A message
 * without a verified caller (a bus not wrapped by `withBusTrust`) is refused: a composition root
 * that forgot the trust layer serves nothing rather than everything.
 */
function serveMessages(
  bus: Bus,
  subject: string,
  handler: (message: BusMessage, caller: BusCaller) => Promise<unknown>,
  options: ServeOptions,
): Subscription {
  return bus.serve(
    subject,
    (message) =>
      withTraceFromHeaders(message.headers, subject, async () => {
        const { caller } = message;
        if (!caller) {
          options.logger.warn({ subject }, 'bus request without a verified caller refused');
          return refusalReply();
        }
        try {
          return { data: encodeJson(await handler(message, caller)) };
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
  /** The signed-in person the call acts for (the gateway's and the operators' CLI's calls only). */
  onBehalfOf?: Actor;
  requestId?: string;
}

/**
 * Calls a bus API and validates the reply with its reply schema; a typed error reply is rethrown
 * as the same AppError. Bus failures (NoRespondersError, BusTimeoutError) propagate unchanged.
 */
export async function callApi<Request extends z.ZodType, Reply extends z.ZodType>(
  bus: Bus,
  api: BusApi<Request, Reply>,
  payload: z.input<Request>,
  options: CallOptions,
): Promise<z.infer<Reply>> {
  const reply = await tracer.startActiveSpan(
    api.subject,
    { kind: SpanKind.PRODUCER },
    async (span) => {
      try {
        return await bus.request(api.subject, encodeJson(payload), {
          ...options,
          headers: injectTraceHeaders({ ...options.headers }),
        });
      } finally {
        span.end();
      }
    },
  );
  return decodeReply(reply, api.reply);
}

function decodeReply<Schema extends z.ZodType>(
  reply: BusMessage,
  replySchema: Schema,
): z.infer<Schema> {
  const body = decodeJson(reply.data);
  if (reply.headers[ERROR_HEADER]) throw toAppError(BusErrorReply.parse(body));
  return replySchema.parse(body);
}

/** Handles one REST route forwarded by the gateway. */
export type RouteHandler = (request: ServiceRequest) => Promise<ServiceReply>;

/** Handles one raw route (webhooks, the MCP endpoint): the body arrives as bytes. */
export type RawRouteHandler = (request: RawServiceRequest) => Promise<ServiceReply>;

/** The handler map of a service: one handler per route it owns, raw or JSON as the route says. */
export type RouteHandlers<Routes extends readonly RouteSpec[], Owner extends ServiceName> = {
  [Route in Extract<Routes[number], { owner: Owner }> as Route['operationId']]: Route extends {
    bodyKind: 'raw';
  }
    ? RawRouteHandler
    : RouteHandler;
};

export interface ServeRoutesOptions extends ServeOptions {
  /** Where large raw bodies are parked by the gateway; needed when the service owns raw routes. */
  objects?: ObjectStore;
  /**
   * A request on a route's previous subject (decision 143): `handle` runs the route's handler,
   * and what comes back must be what the previous version's published schemas hold (refused
   * before acting when it cannot be). Needed when a route the service owns has a
   * `previousSubject`.
   */
  asPreviousVersion?: (
    route: RouteSpec,
    request: ServiceRequest,
    handle: () => Promise<ServiceReply>,
  ) => Promise<ServiceReply>;
}

/**
 * Serves every route `owner` owns. The handler map is typed from the route table, so a route
 * without a handler (or a handler for a route owned elsewhere) does not compile.
 */
export function serveRoutes<Routes extends readonly RouteSpec[], Owner extends ServiceName>(
  bus: Bus,
  routes: Routes,
  owner: Owner,
  handlers: NoInfer<RouteHandlers<Routes, Owner>>,
  options: ServeRoutesOptions,
): Subscription[] {
  const byOperation = handlers as Record<string, RouteHandler | RawRouteHandler>;
  return routes
    .filter((route) => route.owner === owner)
    .flatMap((route) => {
      const handler = byOperation[route.operationId];
      if (!handler) throw new Error(`no handler for route ${route.operationId}`);
      if (route.bodyKind !== 'raw') {
        type Answer = (request: ServiceRequest) => Promise<ServiceReply>;
        const serve = (subject: string, answer: Answer) =>
          serveApi(
            bus,
            { subject, request: ForwardedRequest, reply: ServiceReply },
            (forwarded, caller) => {
              checkRouteParts(route, forwarded);
              return answer({ ...forwarded, actor: caller.user ?? null });
            },
            options,
          );
        const handle = handler as RouteHandler;
        if (!route.previousSubject) return [serve(route.subject, handle)];
        const { asPreviousVersion } = options;
        if (!asPreviousVersion) {
          throw new Error(
            `route ${route.operationId} has a previous version: give asPreviousVersion`,
          );
        }
        return [
          serve(route.subject, handle),
          serve(route.previousSubject, (request) =>
            asPreviousVersion(route, request, () => handle(request)),
          ),
        ];
      }
      const { objects } = options;
      if (!objects) throw new Error(`raw route ${route.operationId} needs the object store`);
      return serveMessages(
        bus,
        route.subject,
        async (message) => {
          const request = await readRawRequest(message, objects);
          try {
            return await (handler as RawRouteHandler)(request);
          } finally {
            await deleteUnlessKept(objects, request.parkedBody, options.logger);
          }
        },
        options,
      );
    });
}

/**
 * The route's own schemas, again on the serving side: a part the gateway would have refused is a
 * 400 here too, whoever sent it, before any handler reads it (a handler's own parse of the same
 * part with the same schema then cannot fail).
 */
function checkRouteParts(route: RouteSpec, request: ForwardedRequest): void {
  const { params, query, body } = route.request ?? {};
  if (params) parseRequestPart(params, request.params);
  if (query) parseRequestPart(query, request.query);
  // JSON has no undefined: a request without a body may carry null, which means none.
  if (body && route.bodyKind === 'json') parseRequestPart(body, request.body ?? undefined);
}

export const RAW_META_HEADER = 'wap-raw-request';
/** Bodies above this travel through the object store: a NATS message holds 1 MiB at most. */
export const INLINE_BODY_LIMIT_BYTES = 512 * 1024;

/** A parked body, deleted by the service that received it once answered, unless it kept it. */
interface ParkedBodyOfRequest extends ParkedBody {
  kept: boolean;
}

async function readRawRequest(
  message: BusMessage,
  objects: ObjectStore,
): Promise<RawServiceRequest & { parkedBody?: ParkedBodyOfRequest }> {
  const encoded = message.headers[RAW_META_HEADER];
  if (!encoded) throw new AppError('BAD_REQUEST', 'Raw request metadata is missing');
  const { bodyRef, ...meta } = RawRequestMeta.parse(
    JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')),
  );
  if (!bodyRef) return { ...meta, body: message.data };
  if (bodyRef.bucket !== REQUEST_BODIES_BUCKET) {
    throw new AppError('BAD_REQUEST', 'A parked body must be in the request bodies bucket');
  }
  const stored = await objects.get(bodyRef.bucket, bodyRef.name);
  if (!stored) throw new AppError('SERVICE_UNAVAILABLE', 'The request body is no longer available');
  const chunks: Uint8Array[] = [];
  for await (const chunk of stored.content) chunks.push(chunk);
  const parkedBody: ParkedBodyOfRequest = {
    ref: bodyRef,
    kept: false,
    keep() {
      parkedBody.kept = true;
    },
  };
  return { ...meta, body: new Uint8Array(Buffer.concat(chunks)), parkedBody };
}

async function deleteUnlessKept(
  objects: ObjectStore,
  parked: ParkedBodyOfRequest | undefined,
  logger: Logger,
): Promise<void> {
  if (!parked || parked.kept) return;
  await objects.delete(parked.ref.bucket, parked.ref.name).catch((error: unknown) => {
    // The bucket's age limit removes it in the end.
    logger.warn({ err: error, object: parked.ref.name }, 'deleting a parked request body failed');
  });
}

/**
 * Forwards a raw route: metadata in a header, the body as the message data, or parked in the
 * object store when it is too large for one message. The service that receives a parked body
 * deletes it once it answered, or keeps it as the body of what it stored; it is deleted here
 * only when no service took the request (a request that timed out may still be read).
 */
export async function callRawRoute(
  deps: { bus: Bus; objects: ObjectStore; ids: IdSource },
  subject: string,
  meta: Omit<RawRequestMeta, 'bodyRef'>,
  body: Uint8Array,
  options: CallOptions,
): Promise<ServiceReply> {
  let bodyRef: RawRequestMeta['bodyRef'];
  if (body.length > INLINE_BODY_LIMIT_BYTES) {
    const name = deps.ids.uuid();
    await deps.objects.put(
      REQUEST_BODIES_BUCKET,
      name,
      (async function* () {
        yield body;
      })(),
    );
    bodyRef = { bucket: REQUEST_BODIES_BUCKET, name, size: body.length };
  }
  const headers = injectTraceHeaders({
    ...options.headers,
    [RAW_META_HEADER]: Buffer.from(JSON.stringify({ ...meta, bodyRef })).toString('base64url'),
  });
  try {
    const reply = await tracer.startActiveSpan(
      subject,
      { kind: SpanKind.PRODUCER },
      async (span) => {
        try {
          return await deps.bus.request(subject, bodyRef ? new Uint8Array() : body, {
            ...options,
            requestId: meta.requestId,
            headers,
          });
        } finally {
          span.end();
        }
      },
    );
    return decodeReply(reply, ServiceReply);
  } catch (error) {
    if (bodyRef && error instanceof NoRespondersError) {
      await deps.objects.delete(bodyRef.bucket, bodyRef.name);
    }
    throw error;
  }
}

/**
 * Calls a route subject the way the gateway does, returning the service's reply. The actor
 * travels in the signed assertion, never in the payload: the service takes it from there.
 */
export function callRoute(
  bus: Bus,
  subject: string,
  { actor, ...forwarded }: ServiceRequest,
  options: CallOptions,
): Promise<ServiceReply> {
  const request: ForwardedRequest = forwarded;
  const api = { subject, request: ForwardedRequest, reply: ServiceReply };
  return callApi(bus, api, request, {
    ...options,
    onBehalfOf: actor ?? undefined,
    requestId: forwarded.requestId,
  });
}
