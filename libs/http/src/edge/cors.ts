import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestHeader } from '../raw-request';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Content-Type, X-Request-Id, X-Workspace-Id, Idempotency-Key';

/**
 * Sets the CORS headers of a response to the one configured web origin, with credentials (the
 * session cookie); false, and no headers, for any other origin, so browsers keep its responses
 * from scripts.
 */
export function allowConfiguredOrigin(
  origin: string | undefined,
  requestOrigin: string | undefined,
  res: ServerResponse,
): boolean {
  if (!origin || requestOrigin !== origin) return false;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Credentials', 'true');
  res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After');
  const vary = res.getHeader('Vary');
  res.setHeader('Vary', vary ? `${String(vary)}, Origin` : 'Origin');
  return true;
}

/**
 * CORS for one request: the configured origin's headers, and the answer to its preflight.
 * True when the request was a preflight and is answered (204).
 */
export function answerCors(
  origin: string | undefined,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  if (!allowConfiguredOrigin(origin, requestHeader(req, 'origin'), res)) return false;
  if (req.method !== 'OPTIONS' || !requestHeader(req, 'access-control-request-method')) {
    return false;
  }
  res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.writeHead(204).end();
  return true;
}
