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
 * The one place HTTP failures are turned into responses: user errors are logged at info,
 * unexpected ones with their stack at error and answered 500 with a generic message (never the
 * stack). Express routes get it through `errorHandler`; the gateway's raw routes call it.
 */
export function errorReplyOf(
  error: unknown,
  log: Logger,
  path: string,
): { status: number; body: ErrorBody } {
  const appError = toAppError(error);
  if (!appError) {
    log.error({ err: error, path }, 'unexpected error');
    return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } };
  }
  if (appError.status >= 500) log.warn({ code: appError.code, path }, appError.message);
  else log.info({ code: appError.code, status: appError.status, path }, appError.message);
  return { status: appError.status, body: appError.toBody() };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const log = (res.locals['logger'] as Logger | undefined) ?? logger;
    const { status, body } = errorReplyOf(error, log, req.path);
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
