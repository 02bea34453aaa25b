import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { AppError, type ServiceReply } from '@wap/contracts';

// How the HTTP edge reads a request and writes a service's reply on node:http, as Express
// would, so that moving routes off Express changed no answer.

/** A request header's value, repeated values joined as Node joins most of them. */
export function requestHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The query string as Express's 'simple' query parser reads it. */
export function simpleQueryOf(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(parseQuery(search))) {
    if (value !== undefined) query[name] = value;
  }
  return query;
}

/** As Express's `req.protocol` with `trust proxy` set to a number of hops. */
export function protocolOf(req: IncomingMessage, trustProxyHops: number): 'http' | 'https' {
  const own = 'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http';
  const forwarded = trustProxyHops > 0 ? requestHeader(req, 'x-forwarded-proto') : undefined;
  if (!forwarded) return own;
  return forwarded.split(',')[0]?.trim() === 'https' ? 'https' : 'http';
}

/** As Express's `req.ip`: the address `trustProxyHops` hops back along X-Forwarded-For. */
export function clientAddressOf(req: IncomingMessage, trustProxyHops: number): string {
  const socketAddress = req.socket.remoteAddress ?? '';
  if (trustProxyHops === 0) return socketAddress;
  const forwardedFor = (requestHeader(req, 'x-forwarded-for') ?? '')
    .split(',')
    .map((address) => address.trim())
    .filter((address) => address !== '')
    .reverse();
  const chain = [socketAddress, ...forwardedFor];
  return chain[Math.min(trustProxyHops, chain.length - 1)] ?? socketAddress;
}

export function payloadTooLarge(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
}

/** Content-Type with its charset set to UTF-8, as Express's `res.send` writes strings. */
function withUtf8Charset(contentType: string): string {
  const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim());
  const others = parameters.filter((parameter) => !/^charset=/i.test(parameter));
  return [mediaType?.toLowerCase(), ...others, 'charset=utf-8'].join('; ');
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** The service's reply as Express's `writeReply` sends it (`res.json`, or text). */
export function writeServiceReply(res: ServerResponse, reply: ServiceReply): void {
  if (reply.headers) {
    for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  }
  if (reply.status === 204 || reply.body === undefined) {
    res.writeHead(reply.status).end();
    return;
  }
  const text = reply.bodyKind === 'text';
  const payload = text ? String(reply.body) : JSON.stringify(reply.body);
  const contentType = res.getHeader('content-type');
  res.setHeader(
    'Content-Type',
    contentType === undefined
      ? text
        ? TEXT_CONTENT_TYPE
        : JSON_CONTENT_TYPE
      : withUtf8Charset(String(contentType)),
  );
  // Text made of a sender's values (a Custom Response) must never be read as HTML or script.
  if (text) res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(payload));
  res.writeHead(reply.status).end(payload);
}
