import type { RequestHandler } from 'express';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = 'Content-Type, X-Request-Id, X-Workspace-Id, Idempotency-Key';

/**
 * CORS for the one configured web origin, with credentials (the session cookie). Other origins
 * get no CORS headers, so browsers keep their responses from scripts.
 */
export function corsForOrigin(origin: string | undefined): RequestHandler {
  return (req, res, next) => {
    const requestOrigin = req.get('origin');
    if (!origin || requestOrigin !== origin) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After');
    res.vary('Origin');
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '600');
      res.status(204).end();
      return;
    }
    next();
  };
}
