import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { ApiKeyPrincipal, RawServiceRequest, RouteSpec } from '@wap/contracts';
import { clientAddressOf, protocolOf, requestHeader, simpleQueryOf } from '../raw-request';
import { readBody, jsonBodyOf, type JsonBody } from './request-body';

/** A request the edge matched to a route of the table, as route handlers read it. */
export interface EdgeRequest {
  readonly incoming: IncomingMessage;
  readonly requestId: string;
  readonly method: string;
  /** The path as sent, escapes and all. */
  readonly path: string;
  readonly route: RouteSpec;
  /** The path parameters, decoded. */
  readonly params: Record<string, string>;
  /** The scheme the client used: X-Forwarded-Proto behind a trusted proxy, else the socket's. */
  readonly protocol: 'http' | 'https';
  /** A header's value, repeated values joined; names in any case. */
  header(name: string): string | undefined;
  /** The query string as Express's 'simple' parser reads it. */
  query(): Record<string, string | string[]>;
  /** The address `trustProxyHops` hops back along X-Forwarded-For, as Express's `req.ip`. */
  clientAddress(): string;
  /** The whole body (inflated), within the route's limit. */
  body(): Promise<Buffer>;
  /** The body as JSON, within the route's limit and nesting; undefined when there is none. */
  json(): Promise<JsonBody | undefined>;
  /** The request's logger, with its id. */
  readonly logger: Logger;
}

export interface EdgeRequestOptions {
  incoming: IncomingMessage;
  requestId: string;
  path: string;
  search: string | undefined;
  route: RouteSpec;
  params: Record<string, string>;
  trustProxyHops: number;
  bodyLimitBytes: number;
  logger: Logger;
}

/** One per request: methods on the prototype, so that a request allocates no closures. */
class IncomingEdgeRequest implements EdgeRequest {
  readonly incoming: IncomingMessage;
  readonly requestId: string;
  readonly method: string;
  readonly path: string;
  readonly route: RouteSpec;
  readonly params: Record<string, string>;
  readonly protocol: 'http' | 'https';
  private readonly options: EdgeRequestOptions;
  private requestLogger: Logger | undefined;

  constructor(options: EdgeRequestOptions) {
    this.options = options;
    this.incoming = options.incoming;
    this.requestId = options.requestId;
    this.method = options.incoming.method ?? '';
    this.path = options.path;
    this.route = options.route;
    this.params = options.params;
    this.protocol = protocolOf(options.incoming, options.trustProxyHops);
  }

  header(name: string): string | undefined {
    return requestHeader(this.incoming, name.toLowerCase());
  }

  query(): Record<string, string | string[]> {
    return this.options.search === undefined ? {} : simpleQueryOf(this.options.search);
  }

  clientAddress(): string {
    return clientAddressOf(this.incoming, this.options.trustProxyHops);
  }

  body(): Promise<Buffer> {
    return readBody(this.incoming, this.route.bodyLimitBytes ?? this.options.bodyLimitBytes);
  }

  async json(): Promise<JsonBody | undefined> {
    return jsonBodyOf(await this.body(), this.header('content-type'));
  }

  // Most requests log nothing beyond the request line: their child logger is made on first use.
  get logger(): Logger {
    return (this.requestLogger ??= this.options.logger.child({ request_id: this.requestId }));
  }
}

export function createEdgeRequest(options: EdgeRequestOptions): EdgeRequest {
  return new IncomingEdgeRequest(options);
}

/** Headers never passed on from the edge: the caller's credentials stay there. */
const CREDENTIAL_HEADERS = new Set(['cookie', 'authorization', 'proxy-authorization']);

/** Every request header but the caller's credentials, lower-cased, repeated values joined. */
export function passedOnHeaders(incoming: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value === undefined || CREDENTIAL_HEADERS.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A raw route's request as its service receives it, whichever door it came in by. */
export function rawServiceRequestOf(
  request: EdgeRequest,
  body: Uint8Array,
  apiKey: ApiKeyPrincipal | null,
): RawServiceRequest {
  return {
    requestId: request.requestId,
    method: request.method,
    path: request.path,
    params: request.params,
    query: request.query(),
    headers: passedOnHeaders(request.incoming),
    protocol: request.protocol,
    host: request.header('host') ?? '',
    remoteAddress: request.clientAddress(),
    apiKey,
    body,
  };
}
