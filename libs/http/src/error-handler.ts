import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { AppError, type ErrorBody } from '@wap/contracts';
import { retryAfterHeaderOf } from './actor-rate-limit';
import { JSON_NESTING_LIMIT } from './json-nesting';
import { loggablePath } from './loggable-path';

/** JSON nested deeper than the limit (decision 119): the route's 400 INVALID_JSON. */
export function jsonTooDeepError(): AppError {
  return new AppError(
    'INVALID_JSON',
    `Invalid JSON body: arrays and objects nest deeper than ${JSON_NESTING_LIMIT} levels`,
  );
}

/** What Express and the modules it uses attach to the client errors they raise. */
interface ClientError extends Error {
  status?: number;
}

/**
 * The registry's error for a failure: an AppError as it is, or a client error Express raised
 * on the gateway's own routes (a path whose escapes do not decode is a URIError with status
 * 400). Anything else is unexpected: undefined.
 */
export function toAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  if (error instanceof URIError) {
    return new AppError('BAD_REQUEST', 'The path has a malformed percent-encoding');
  }
  const status = (error as ClientError | undefined)?.status;
  if (status === 400) return new AppError('BAD_REQUEST', 'The request could not be read');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'Request body is too large');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content encoding');
  return undefined;
}

/**
 * The one place HTTP failures are turned into responses: user errors are logged at info,
 * unexpected ones with their stack at error and answered 500 with a generic message (never the
 * stack). Express routes get it through `errorHandler`; the HTTP edge calls it.
 */
export function errorReplyOf(
  error: unknown,
  log: Logger,
  path: string,
): { status: number; body: ErrorBody; headers?: Record<string, string> } {
  const appError = toAppError(error);
  if (!appError) {
    log.error({ err: error, path: loggablePath(path) }, 'unexpected error');
    return { status: 500, body: { error: 'Internal server error', code: 'INTERNAL_ERROR' } };
  }
  const logged = { code: appError.code, path: loggablePath(path) };
  if (appError.status >= 500) log.warn(logged, appError.message);
  else log.info({ ...logged, status: appError.status }, appError.message);
  return {
    status: appError.status,
    body: appError.toBody(),
    headers: retryAfterHeaderOf(appError),
  };
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const log = (res.locals['logger'] as Logger | undefined) ?? logger;
    const { status, body, headers } = errorReplyOf(error, log, req.path);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (headers) res.set(headers);
    res.status(status).json(body);
  };
}

/** Answers any request no route matched. */
export function notFoundHandler(): RequestHandler {
  return (_req, _res, next) => next(new AppError('ROUTE_NOT_FOUND', 'Not found'));
}

/**
 * For a server's `clientError` event: a request Node cannot parse (headers past its limit,
 * broken framing) is answered by Node itself, with no body; this answers it with the Error body
 * and closes the connection, as Node does.
 */
export function answerUnparsedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const refusal =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? new AppError('HEADERS_TOO_LARGE', 'Request headers are too large')
      : new AppError('BAD_REQUEST', 'The request is not valid HTTP');
  const body = JSON.stringify(refusal.toBody());
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
