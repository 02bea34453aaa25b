import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Keeps a caller's X-Request-Id when it is sane (so ids chain across proxies), else makes one;
 * echoes it in the response and puts a child logger carrying it in res.locals.logger.
 */
export function requestId(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const id = incoming && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.locals['requestId'] = id;
    res.locals['logger'] = logger.child({ request_id: id });
    res.setHeader('X-Request-Id', id);
    next();
  };
}
