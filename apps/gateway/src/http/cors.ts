import type { RequestHandler } from 'express';
import { answerCors } from '@wap/http';

/** CORS for the configured web origin on the gateway's own routes, as the edge gives its routes. */
export function corsForOrigin(origin: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!answerCors(origin, req, res)) next();
  };
}
