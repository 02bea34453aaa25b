import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, type ErrorBody } from '@wap/contracts';

/** What body-parser attaches to the errors it raises. */
interface BodyParserError extends Error {
  type?: string;
  status?: number;
}

/** Turns body-parser's failures into the registry's errors, so they get the Error body too. */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const parserError = error as BodyParserError;
  switch (parserError?.type) {
    case undefined:
      return undefined;
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    case 'entity.parse.failed':
      return new AppError('INVALID_JSON', 'Invalid JSON body');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding');
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('BAD_REQUEST', 'Request body was not received completely');
    default:
      return undefined;
  }
}

/**
 * The one place HTTP failures are written: user errors are logged at info, unexpected ones
 * with their stack at error and answered 500 with a generic message (never the stack).
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = toAppError(error);
    const log = (res.locals['logger'] as Logger | undefined) ?? logger;
    let status: number;
    let body: ErrorBody;
    if (appError) {
      status = appError.status;
      body = appError.toBody();
      if (status >= 500) log.warn({ code: appError.code, path: req.path }, appError.message);
      else log.info({ code: appError.code, status, path: req.path }, appError.message);
    } else {
      status = 500;
      body = { error: 'Internal server error', code: 'INTERNAL_ERROR' };
      log.error({ err: error, path: req.path }, 'unexpected error');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(status).json(body);
  };
}

/** Answers any request no route matched. */
export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new AppError('ROUTE_NOT_FOUND', 'Not found'));
}
