import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A caller's X-Request-Id when it is sane (so ids chain across proxies), else a new one. */
export function requestIdFor(incoming: string | undefined): string {
  return incoming && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Gives each request its id (see `requestIdFor`), echoes it in the response and puts a child
 * logger carrying it in res.locals.logger.
 */
export function requestId(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const id = requestIdFor(req.get('x-request-id'));
    res.locals['requestId'] = id;
    res.locals['logger'] = logger.child({ request_id: id });
    res.setHeader('X-Request-Id', id);
    next();
  };
}
