import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { AppError, type RouteSpec, type ServiceReply } from '@wap/contracts';
import { runInServerSpan } from '@wap/observability';
import { errorReplyOf } from '../error-handler';
import { loggablePath } from '../loggable-path';
import { requestHeader, writeServiceReply } from '../raw-request';
import { requestIdFor } from '../request-id';
import { allowConfiguredOrigin, answerCors } from './cors';
import { createEdgeRequest, type EdgeRequest } from './edge-request';
import { isUnsafeMethod, type RequestSiteCheck } from './request-site';
import { createRouteMatcher } from './route-matcher';

/**
 * Answers one request of its route: the reply for the edge to write, or undefined when the
 * handler wrote the response itself (a download, an event stream).
 */
export type EdgeHandler = (
  request: EdgeRequest,
  res: ServerResponse,
) => Promise<ServiceReply | undefined>;

export interface EdgeRoute {
  route: RouteSpec;
  handle: EdgeHandler;
}

/** The route label of a request no route of the table matches. */
export const UNMATCHED_ROUTE = 'unmatched';

export interface HttpEdgeOptions {
  routes: readonly EdgeRoute[];
  logger: Logger;
  /** Proxies in front whose X-Forwarded-For and -Proto are believed. */
  trustProxyHops: number;
  /** A route's body limit when the route names none. */
  bodyLimitBytes: number;
  /** The one web origin that gets CORS headers with credentials. */
  corsOrigin?: string;
  /**
   * Where an unsafe request that carries cookies to a session route must come from (decision
   * 118): refused 403 otherwise, before its body is read.
   */
  isFromTrustedSite?: RequestSiteCheck;
  /** What becomes of a request no route matches: left to the caller, or answered 404. */
  unmatched: 'pass' | 'not_found';
  /** Called once a request is answered; `started` is from `process.hrtime.bigint()`. */
  onAnswered?: (method: string, route: string, status: number, started: bigint) => void;
}

/** Serves a request and returns true, or returns false, untouched, for the caller to serve. */
export type HttpEdge = (req: IncomingMessage, res: ServerResponse) => boolean;

function isJsonMediaType(contentType: string): boolean {
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[^/\s]+\+json$/.test(mediaType);
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A JSON route takes JSON or nothing, and so does a body-less POST or DELETE: a Content-Type
 * that is not JSON is refused even on an empty body, since a form of another site can send one.
 */
function refuseUnlessJson(route: RouteSpec, req: IncomingMessage): void {
  const takesJson =
    route.bodyKind === 'json' || (route.bodyKind === 'none' && route.method !== 'GET');
  if (!takesJson) return;
  const contentType = requestHeader(req, 'content-type');
  if (contentType === undefined ? hasBody(req) : !isJsonMediaType(contentType)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
}

/**
 * The platform's one HTTP edge for the route table (decision 126): the gateway and
 * webhook-ingest's direct door both serve their routes through it, so that matching, parameter
 * decoding, body reading (limit, inflation, JSON and its nesting), the request a service sees,
 * the reply, the span and request log, CORS and the cross-site check are written once.
 *
 * Every request it takes gets a request id, a server span named by its route template (never
 * the path, which may hold a webhook address), a request log with the path fingerprinted, and
 * an Error body for whatever fails.
 */
/* eslint-disable-next-line max-lines-per-function --
  the edge's request handler and its short helpers share the route table and limits */
export function createHttpEdge(options: HttpEdgeOptions): HttpEdge {
  const matchRoute = createRouteMatcher(options.routes);

  function answer(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    route: string,
    work: (requestId: string) => Promise<void>,
  ): void {
    const started = process.hrtime.bigint();
    const requestId = requestIdFor(requestHeader(req, 'x-request-id'));
    res.setHeader('X-Request-Id', requestId);
    allowConfiguredOrigin(options.corsOrigin, requestHeader(req, 'origin'), res);
    void runInServerSpan(`${req.method} ${route}`, req.headers, async () => {
      try {
        await work(requestId);
      } catch (error) {
        writeError(req, res, error, path, requestId);
      }
      options.onAnswered?.(req.method ?? '', route, res.statusCode, started);
      options.logger.info(
        {
          request_id: requestId,
          method: req.method,
          path: loggablePath(path),
          route,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
  }

  function writeError(
    req: IncomingMessage,
    res: ServerResponse,
    error: unknown,
    path: string,
    requestId: string,
  ): void {
    const { status, body, headers } = errorReplyOf(
      error,
      options.logger.child({ request_id: requestId }),
      path,
    );
    // Mid-stream the status is sent: the response can only end, and the client retries.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // What is left of a refused body is not read: the connection closes after the answer.
    if (!req.complete) res.setHeader('Connection', 'close');
    writeServiceReply(res, { status, body, headers });
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (req.method === 'OPTIONS' && answerCors(options.corsOrigin, req, res)) return true;
    const found = matchRoute(req.method ?? '', path);
    if (!found) {
      if (options.unmatched === 'pass') return false;
      answer(req, res, path, UNMATCHED_ROUTE, () => {
        throw new AppError('ROUTE_NOT_FOUND', 'Not found');
      });
      return true;
    }
    const { route, handle } = found.entry;
    answer(req, res, path, route.path, async (requestId) => {
      // The value is (part of) an address: never echoed (decision 120).
      if (!found.params)
        throw new AppError('BAD_REQUEST', 'The path has a malformed percent-encoding');
      refuseUnlessJson(route, req);
      const request = createEdgeRequest({
        incoming: req,
        requestId,
        path,
        search: queryAt === -1 ? undefined : url.slice(queryAt + 1),
        route,
        params: found.params,
        trustProxyHops: options.trustProxyHops,
        bodyLimitBytes: options.bodyLimitBytes,
        logger: options.logger,
      });
      if (
        route.auth === 'session' &&
        isUnsafeMethod(request.method) &&
        request.header('cookie') !== undefined &&
        options.isFromTrustedSite &&
        !options.isFromTrustedSite(request)
      ) {
        throw new AppError('FORBIDDEN', 'Cross-site request refused');
      }
      const reply = await handle(request, res);
      if (reply) writeServiceReply(res, reply);
    });
    return true;
  };
}
