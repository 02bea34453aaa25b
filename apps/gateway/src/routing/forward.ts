import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { match, type MatchFunction } from 'path-to-regexp';
import {
  AppError,
  type ApiKeyPrincipal,
  type RouteSpec,
  type ServiceReply,
  type ServiceRequest,
} from '@wap/contracts';
import { jsonTooDeepError, nestsDeeperThan, validate, valueNestsDeeperThan } from '@wap/http';
import {
  BusTimeoutError,
  NoRespondersError,
  callRawRoute,
  callRoute,
  isJsonbStorable,
  type Bus,
  type IdSource,
  type ObjectStore,
} from '@wap/platform';
import type { SessionAuthenticator } from '../sessions/authenticate';
import { eventStreamHandler } from '../event-streams/event-stream-route';
import { downloadHandler } from '../uploads/download-route';
import { uploadHandler } from '../uploads/upload-route';

export interface ForwardingDeps {
  bus: Bus;
  objects: ObjectStore;
  ids: IdSource;
  authenticator: SessionAuthenticator;
  /** The workspace a `Bearer sk_...` key belongs to, or a 401. */
  authenticateApiKey: (req: Request) => Promise<ApiKeyPrincipal>;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  logger: Logger;
  /** Aborted when the gateway stops: open event streams end so that clients resume elsewhere. */
  closing: AbortSignal;
}

/** Where `dispatchRoutes` leaves the template of the route it dispatched to. */
export const DISPATCHED_ROUTE = 'dispatchedRoute';

interface DispatchEntry {
  route: RouteSpec;
  matchPath: MatchFunction<Partial<Record<string, string>>>;
  handlers: readonly RequestHandler[];
}

/** The table's routes, each with its handlers: authenticate, validate, forward over the bus. */
export interface RouteTable {
  /**
   * Runs the handlers of the table route a request matches, straight from one lookup by method
   * and first path segment: Express's router would test every layer before it in turn. Any
   * request it cannot match exactly as Express does (a malformed escape) goes on to Express.
   */
  dispatch: RequestHandler;
  /** Registers the same routes on Express, for what `dispatch` leaves (OPTIONS, odd paths). */
  mount(app: Express): void;
}

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

function runHandlers(
  handlers: readonly RequestHandler[],
  req: Request,
  res: Response,
  done: NextFunction,
): void {
  let index = 0;
  const step = (error?: unknown): void => {
    if (error !== undefined) {
      done(error);
      return;
    }
    const handler = handlers[index];
    index += 1;
    if (!handler) {
      // Passing on would reach the same route registered on Express and forward it twice.
      done(new AppError('ROUTE_NOT_FOUND', 'Not found'));
      return;
    }
    try {
      const returned: unknown = handler(req, res, step);
      // As Express 5 does: a handler's rejected promise is its error.
      if (returned instanceof Promise) {
        returned.catch((rejection: unknown) => done(rejection ?? new Error('Rejected promise')));
      }
    } catch (thrown) {
      done(thrown);
    }
  };
  step();
}

/** Builds the handlers of every route of the table. */
export function createRouteTable(routes: readonly RouteSpec[], deps: ForwardingDeps): RouteTable {
  const parseJson = express.json({
    limit: deps.bodyLimitBytes,
    type: () => true,
    strict: false,
    // A NUL or a lone surrogate can only come as a \u escape (raw, JSON or UTF-8 refuses it):
    // a UTF-8 body without one needs no walk through its strings. A zero byte means UTF-16 or
    // UTF-32, where the escape's bytes are not side by side. Nesting deeper than the limit is
    // refused before the parse (decision 119), but for UTF-16 or UTF-32, whose bytes do not read
    // as ASCII: such a body's value is walked after it.
    verify: (_req, res, raw) => {
      const wide = raw.includes(0);
      if (!wide && nestsDeeperThan(raw)) throw jsonTooDeepError();
      (res as Response).locals[HAS_UNICODE_ESCAPES] = raw.includes('\\u') || wide;
      (res as Response).locals[WIDE_ENCODING] = wide;
    },
  });
  const entries: DispatchEntry[] = [];
  for (const route of routes) {
    const handlers: RequestHandler[] = [];
    if (route.bodyKind === 'json')
      handlers.push(requireJsonContentType, parseJson, requireStorableJson);
    // A body-less POST or DELETE is a JSON route too: a form of another site cannot name it.
    if (route.bodyKind === 'none' && route.method !== 'GET') handlers.push(requireJsonContentType);
    if (route.bodyKind === 'multipart') {
      if (!route.upload) throw new Error(`multipart route ${route.operationId} has no upload`);
      handlers.push(uploadHandler(route, route.upload, deps));
    } else if (route.responseKind === 'file') {
      handlers.push(downloadHandler(route, deps));
    } else if (route.responseKind === 'event_stream') {
      handlers.push(eventStreamHandler(route, deps));
    } else if (route.bodyKind === 'raw') {
      // Raw routes are for callers without a session (webhooks, MCP clients with API keys).
      if (route.auth === 'session')
        throw new Error(`raw route ${route.operationId} takes no session`);
      handlers.push(
        express.raw({ type: () => true, limit: route.bodyLimitBytes ?? deps.bodyLimitBytes }),
        forwardRaw(route, deps),
      );
    } else {
      handlers.push(forward(route, deps));
    }
    entries.push({
      route,
      // As Express 5 matches a route path: any case, an optional trailing slash.
      matchPath: match(route.path, { decode: false, sensitive: false, trailing: true }),
      handlers,
    });
  }

  // Routes keep their table order within each method and first segment, as Express's first
  // match wins. Express answers HEAD with a GET route.
  const byMethod = new Map<string, Map<string, DispatchEntry[]>>();
  for (const entry of entries) {
    const segment = firstSegment(entry.route.path);
    if (segment.startsWith(':') || segment.startsWith('*')) {
      throw new Error(`route ${entry.route.operationId} must start with a literal segment`);
    }
    const methods = entry.route.method === 'GET' ? ['GET', 'HEAD'] : [entry.route.method];
    for (const method of methods) {
      const bySegment = byMethod.get(method) ?? new Map<string, DispatchEntry[]>();
      byMethod.set(method, bySegment);
      bySegment.set(segment, [...(bySegment.get(segment) ?? []), entry]);
    }
  }

  function lookup(
    method: string,
    path: string,
  ): { entry: DispatchEntry; params: Record<string, string> } | undefined {
    const candidates = byMethod.get(method)?.get(firstSegment(path));
    if (!candidates) return undefined;
    for (const entry of candidates) {
      const matched = entry.matchPath(path);
      if (!matched) continue;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(matched.params)) {
        if (value === undefined) continue;
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          return undefined;
        }
      }
      return { entry, params };
    }
    return undefined;
  }

  return {
    dispatch(req, res, next) {
      const found = lookup(req.method, req.path);
      if (!found) {
        next();
        return;
      }
      req.params = found.params;
      res.locals[DISPATCHED_ROUTE] = found.entry.route.path;
      runHandlers(found.entry.handlers, req, res, next);
    },
    mount(app) {
      for (const { route, handlers } of entries) {
        const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
        app[method](route.path, ...handlers);
      }
    },
  };
}

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

/**
 * A JSON route takes JSON or nothing: a Content-Type that is not JSON is refused even on an
 * empty body, since a form of another site can send one (415 before any authentication work).
 */
const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const contentType = req.get('content-type');
  const json = contentType !== undefined && isJsonMediaType(contentType);
  if ((contentType !== undefined || hasBody(req)) && !json) {
    next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    return;
  }
  next();
};

function isJsonMediaType(contentType: string): boolean {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[^/\s]+\+json$/.test(mediaType);
}

const HAS_UNICODE_ESCAPES = 'jsonHasUnicodeEscapes';
const WIDE_ENCODING = 'jsonInWideEncoding';

/**
 * Strings with a NUL or a lone surrogate are valid JSON but no service can store them
 * (PostgreSQL refuses both): refused here with the other validation errors, not as a 500.
 */
const requireStorableJson: RequestHandler = (req, res, next) => {
  if (res.locals[WIDE_ENCODING] === true && valueNestsDeeperThan(req.body)) {
    next(jsonTooDeepError());
    return;
  }
  if (res.locals[HAS_UNICODE_ESCAPES] === true && !isJsonbStorable(req.body)) {
    next(
      new AppError(
        'VALIDATION_ERROR',
        'Strings may not contain NUL characters or unpaired surrogates',
      ),
    );
    return;
  }
  next();
};

/** A service that does not answer in time, or at all, is a 503 for the caller. */
export function unavailableWhenUnanswered(route: RouteSpec) {
  return (error: unknown): never => {
    if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
      throw new AppError('SERVICE_UNAVAILABLE', `The ${route.owner} service is unavailable`);
    }
    throw error;
  };
}

/** Headers never forwarded on raw routes: the caller's credentials stay at the edge. */
const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization']);

/** A raw route's request headers, as forwarded: all but the caller's credentials. */
export function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function forwardRaw(route: RouteSpec, deps: ForwardingDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const apiKey = route.auth === 'api_key' ? await deps.authenticateApiKey(req) : null;
      const body: Uint8Array = Buffer.isBuffer(req.body) ? req.body : new Uint8Array();
      const reply = await callRawRoute(
        deps,
        route.subject,
        {
          requestId: String(res.locals['requestId']),
          method: req.method,
          path: req.path,
          params: { ...req.params } as Record<string, string>,
          query: req.query as ServiceRequest['query'],
          headers: forwardedHeaders(req),
          protocol: req.protocol === 'https' ? 'https' : 'http',
          host: req.get('host') ?? '',
          remoteAddress: req.ip ?? '',
          apiKey,
        },
        body,
        { timeoutMs: deps.requestTimeoutMs },
      ).catch(unavailableWhenUnanswered(route));
      writeReply(res, reply);
    } catch (error) {
      next(error);
    }
  };
}

function forward(route: RouteSpec, deps: ForwardingDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const actor = route.auth === 'session' ? await deps.authenticator.authenticate(req) : null;
      const params = route.request?.params
        ? validate(route.request.params, req.params, 'params')
        : { ...req.params };
      const query = route.request?.query
        ? validate(route.request.query, req.query, 'query')
        : (req.query as ServiceRequest['query']);
      const body =
        route.bodyKind === 'json' && route.request?.body
          ? validate(route.request.body, hasBody(req) ? req.body : undefined, 'body')
          : undefined;
      const request: ServiceRequest = {
        requestId: String(res.locals['requestId']),
        actor,
        params: params as Record<string, string>,
        query: query as ServiceRequest['query'],
        headers: pickHeaders(req, route.forwardHeaders ?? []),
        body,
      };
      const reply = await callRoute(deps.bus, route.subject, request, {
        timeoutMs: route.timeoutMs ?? deps.requestTimeoutMs,
      }).catch(unavailableWhenUnanswered(route));
      writeReply(res, reply);
    } catch (error) {
      next(error);
    }
  };
}

function pickHeaders(req: Request, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = req.get(name);
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

export function writeReply(res: Response, reply: ServiceReply): void {
  if (reply.headers) {
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  }
  // ServiceReply's schema bounds the status already: res.status would check it again.
  res.statusCode = reply.status;
  if (reply.status === 204 || reply.body === undefined) {
    res.end();
  } else if (reply.bodyKind === 'text') {
    // A service may name the text's media type in its headers (the MCP endpoint's event
    // streams); plain text otherwise.
    if (!res.get('content-type')) res.type('text/plain');
    res.send(String(reply.body));
  } else {
    // As res.json writes it, without the ETag and freshness work that no API answer uses.
    const payload = JSON.stringify(reply.body);
    if (!res.get('content-type')) res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(payload));
    res.end(payload);
  }
}
