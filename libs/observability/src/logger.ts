import { pino, type DestinationStream, type Logger } from 'pino';
import { activeTraceFields } from './spans';

export interface LoggerOptions {
  /** Written on every line as `service`. */
  service: string;
  /** pino level name: fatal, error, warn, info, debug, trace or silent. */
  level: string;
  /** Where lines go; stdout when absent. */
  destination?: DestinationStream;
}

/**
 * Paths whose values never reach a log line. `*` matches one level, so each secret name is
 * listed both at the top level and one object down (`{ user: { password } }`).
 */
const SECRET_KEYS = [
  'password',
  'token',
  'accessToken',
  'refreshToken',
  'secret',
  'clientSecret',
  'apiKey',
  'authConfig',
  'credentials',
];
const REDACTED_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["set-cookie"]',
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  // A bare `key` is how KV and object-store code names its keys, so only a nested one
  // (`{ encryption: { key } }`) is taken for a secret.
  '*.key',
];

/**
 * JSON lines for one service. Inside a span every line carries the span's `trace_id` and
 * `span_id`, so logs and traces of one request can be joined.
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { service: options.service, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: activeTraceFields,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    options.destination ?? pino.destination(1),
  );
}

/** A child logger whose every line names the request it belongs to. */
export function withRequestLogger(logger: Logger, requestId: string): Logger {
  return logger.child({ request_id: requestId });
}
