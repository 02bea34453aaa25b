import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import { match, type MatchFunction } from 'path-to-regexp';
import type { Logger } from 'pino';
import {
  AppError,
  WEBHOOK_BODY_LIMIT_BYTES,
  type RawServiceRequest,
  type RouteSpec,
} from '@wap/contracts';
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
import type { DirectDoorConfig } from '../config';
import { countRefusal, refusalReason, type RawRouteHandler, type WebhookEntry } from './deliveries';

/** The route label of a request no route of the door matches, as the gateway labels it. */
const UNMATCHED_ROUTE = 'unmatched';

export interface DirectDoorRoute {
  route: RouteSpec;
  handler: RawRouteHandler;
  /** Counted as a webhook delivery (the POST entries, not the description of an address). */
  entry?: WebhookEntry;
}

export interface DirectDoor {
  /** http://<host>:<port> as bound. */
  url: string;
  /** Stops accepting, then waits for the requests being answered. */
  close(): Promise<void>;
}

interface CompiledRoute extends DirectDoorRoute {
  matchPath: MatchFunction<Partial<Record<string, string>>>;
}

/** Headers never handed to the handler: a caller's credentials, as the gateway drops them. */
const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization']);

/**
 * webhook-ingest's own HTTP entry (decision 90): the production path load balancer →
 * webhook-ingest → JetStream, without the gateway and the bus request between them. It calls the
 * very handlers the bus subjects serve, with the request built as the gateway builds it, and
 * answers as the gateway's raw routes do (request id, server span, body limit, inflated bodies,
 * Error bodies, request log), so either entry gives the same answer to the same request.
 */
export async function startDirectDoor(deps: {
  routes: readonly DirectDoorRoute[];
  config: DirectDoorConfig;
  logger: Logger;
}): Promise<DirectDoor> {
  // As Express 5 matches route paths: without case, with an optional trailing slash.
  const compiled: CompiledRoute[] = deps.routes.map((route) => ({
    ...route,
    matchPath: match(route.route.path, { decode: false, sensitive: false, trailing: true }),
  }));

  function routeOf(
    method: string,
    path: string,
  ): { target: CompiledRoute; params: Record<string, string> } | undefined {
    // Express answers HEAD with the GET route (and Node sends no body).
    const asMethod = method === 'HEAD' ? 'GET' : method;
    for (const target of compiled) {
      if (target.route.method !== asMethod) continue;
      const matched = target.matchPath(path);
      if (!matched) continue;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(matched.params)) {
        if (value === undefined) continue;
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          // The value is (part of) an address: never echoed (decision 120).
          throw new AppError('BAD_REQUEST', 'The path has a malformed percent-encoding');
        }
      }
      return { target, params };
    }
    return undefined;
  }

  function templateOf(method: string, path: string): string {
    const asMethod = method === 'HEAD' ? 'GET' : method;
    const matched = compiled.find(
      (target) => target.route.method === asMethod && target.matchPath(path) !== false,
    );
    return matched?.route.path ?? UNMATCHED_ROUTE;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, requestId: string) {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    let entry: WebhookEntry | undefined;
    try {
      const found = routeOf(req.method ?? '', path);
      if (!found) throw new AppError('ROUTE_NOT_FOUND', 'Not found');
      entry = found.target.entry;
      const body = await readBody(
        req,
        found.target.route.bodyLimitBytes ?? WEBHOOK_BODY_LIMIT_BYTES,
      );
      const request: RawServiceRequest = {
        requestId,
        method: req.method ?? '',
        path,
        params: found.params,
        query: queryAt === -1 ? {} : simpleQueryOf(url.slice(queryAt + 1)),
        headers: handedHeaders(req),
        protocol: protocolOf(req, deps.config.trustProxyHops),
        host: requestHeader(req, 'host') ?? '',
        remoteAddress: clientAddressOf(req, deps.config.trustProxyHops),
        apiKey: null,
        body,
      };
      // From here the handler counts the request itself, as it does for the gateway's.
      entry = undefined;
      writeServiceReply(res, await found.target.handler(request));
    } catch (error) {
      if (entry) countRefusal(entry, refusalReason(error));
      const { status, body } = errorReplyOf(
        error,
        deps.logger.child({ request_id: requestId }),
        path,
      );
      // What is left of a refused body is not read: the connection closes after the answer.
      if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') {
        res.setHeader('Connection', 'close');
      }
      writeServiceReply(res, { status, body });
    }
  }

  const server: Server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdFor(requestHeader(req, 'x-request-id'));
    res.setHeader('X-Request-Id', requestId);
    const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
    // Named by the route template, as the gateway names its spans: the path holds the address.
    const route = templateOf(req.method ?? '', path);
    void runInServerSpan(`${req.method} ${route}`, req.headers, () =>
      answer(req, res, requestId),
    ).finally(() => {
      deps.logger.info(
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
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host === '0.0.0.0' ? '127.0.0.1' : deps.config.host;
  const url = `http://${host}:${port}`;
  deps.logger.info({ webhookUrl: url, port }, 'webhook door listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold close() open until they time out.
        server.closeIdleConnections();
      }),
  };
}

/** Every request header but the caller's credentials, lower-cased, as the gateway forwards them. */
function handedHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** The decoder of a Content-Encoding the gateway's body parser inflates too. */
function decoderOf(encoding: string): Transform | undefined {
  switch (encoding) {
    case 'gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding');
  }
}

/** The whole (inflated) body, refused as soon as it is known to exceed `limitBytes`. */
function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const encoding = (requestHeader(req, 'content-encoding') ?? 'identity').trim().toLowerCase();
  const identity = encoding === 'identity';
  if (identity && Number(req.headers['content-length']) > limitBytes) {
    return Promise.reject(payloadTooLarge());
  }
  const decoder = identity ? undefined : decoderOf(encoding);
  const source = decoder ? req.pipe(decoder) : req;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    source.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        source.removeAllListeners('data');
        req.unpipe();
        req.pause();
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)),
    );
    const incomplete = () =>
      reject(new AppError('BAD_REQUEST', 'Request body was not received completely'));
    req.on('error', incomplete);
    decoder?.on('error', incomplete);
  });
}
