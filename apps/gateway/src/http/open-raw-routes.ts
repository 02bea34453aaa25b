import type { IncomingMessage, ServerResponse } from 'node:http';
import { match, type MatchFunction } from 'path-to-regexp';
import type { Logger } from 'pino';
import { AppError, type RouteSpec } from '@wap/contracts';
import {
  clientAddressOf,
  errorReplyOf,
  loggablePath,
  payloadTooLarge,
  protocolOf,
  requestHeader,
  requestIdFor,
  simpleQueryOf,
  writeServiceReply,
} from '@wap/http';
import { runInServerSpan } from '@wap/observability';
import { callRawRoute, type Platform } from '@wap/platform';
import { forwardedHeaders, unavailableWhenUnanswered } from '../routing/forward';
import { allowConfiguredOrigin } from './cors';
import { observeRequest } from './metrics';

export interface OpenRawRoutesDeps {
  routes: readonly RouteSpec[];
  platform: Pick<Platform, 'bus' | 'objects' | 'ids'>;
  logger: Logger;
  webOrigin: string | undefined;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  /** Proxies in front of the gateway whose X-Forwarded-For and -Proto are believed. */
  trustProxyHops: number;
}

/** Serves a request and returns true, or returns false, untouched, for Express to serve. */
export type RawRouteServer = (req: IncomingMessage, res: ServerResponse) => boolean;

interface CompiledRoute {
  route: RouteSpec;
  matchPath: MatchFunction<Partial<Record<string, string>>>;
}

/**
 * The table's raw routes that take no credentials (the Custom Webhook and the signed provider
 * webhooks), served straight from node:http. They are the platform's hottest path, and on them
 * Express's router, middleware chain and body parser were about half of the gateway's CPU.
 *
 * They behave as the Express routes do: the same request id, trace span, CORS headers, body
 * limit, forwarding, Error bodies and request log. A request this cannot serve exactly so is
 * left to Express: a method or path that another route claims first (routes match in table
 * order, as in Express), a HEAD request, a compressed body, a malformed path escape.
 */
export function createOpenRawRouteServer(deps: OpenRawRoutesDeps): RawRouteServer {
  // Express 5 matches route paths without case and with an optional trailing slash.
  const compiled: CompiledRoute[] = deps.routes.map((route) => ({
    route,
    matchPath: match(route.path, { decode: false, sensitive: false, trailing: true }),
  }));

  function routeOf(
    method: string,
    path: string,
  ): { route: RouteSpec; params: Record<string, string> } | undefined {
    for (const { route, matchPath } of compiled) {
      if (route.method !== method) continue;
      const matched = matchPath(path);
      if (!matched) continue;
      if (route.bodyKind !== 'raw' || route.auth !== 'none') return undefined;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(matched.params)) {
        if (value === undefined) continue;
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          return undefined;
        }
      }
      return { route, params };
    }
    return undefined;
  }

  return (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    const target = routeOf(req.method ?? '', path);
    if (!target) return false;

    const started = process.hrtime.bigint();
    const requestId = requestIdFor(requestHeader(req, 'x-request-id'));
    res.setHeader('X-Request-Id', requestId);
    allowConfiguredOrigin(deps.webOrigin, requestHeader(req, 'origin'), res);
    void runInServerSpan(`${req.method} ${target.route.path}`, req.headers, async () => {
      try {
        const body = await readBody(req, target.route.bodyLimitBytes ?? deps.bodyLimitBytes);
        const reply = await callRawRoute(
          deps.platform,
          target.route.subject,
          {
            requestId,
            method: req.method ?? '',
            path,
            params: target.params,
            query: queryAt === -1 ? {} : simpleQueryOf(url.slice(queryAt + 1)),
            headers: forwardedHeaders(req),
            protocol: protocolOf(req, deps.trustProxyHops),
            host: requestHeader(req, 'host') ?? '',
            remoteAddress: clientAddressOf(req, deps.trustProxyHops),
            apiKey: null,
          },
          body,
          { timeoutMs: deps.requestTimeoutMs },
        ).catch(unavailableWhenUnanswered(target.route));
        writeServiceReply(res, reply);
      } catch (error) {
        const log = deps.logger.child({ request_id: requestId });
        const { status, body } = errorReplyOf(error, log, path);
        // What is left of a refused body is not read: the connection closes after the answer.
        if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') {
          res.setHeader('Connection', 'close');
        }
        writeServiceReply(res, { status, body });
      }
      observeRequest(target.route.method, target.route.path, res.statusCode, started);
      deps.logger.info(
        {
          request_id: requestId,
          method: req.method,
          path: loggablePath(path),
          route: target.route.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    return true;
  };
}

/** The whole body, refused as soon as it is known to exceed `limitBytes`. */
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limitBytes) return Promise.reject(payloadTooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        req.removeAllListeners('data');
        req.pause();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
    );
    req.on('error', () =>
      reject(new AppError('BAD_REQUEST', 'Request body was not received completely')),
    );
  });
}
