/** Nobody serves the subject (NATS "no responders"). */
export class NoRespondersError extends Error {
  constructor(readonly subject: string) {
    super(`no responders for ${subject}`);
    this.name = 'NoRespondersError';
  }
}

/** No reply arrived within the request's timeout. */
export class BusTimeoutError extends Error {
  constructor(
    readonly subject: string,
    readonly timeoutMs: number,
  ) {
    super(`request to ${subject} timed out after ${timeoutMs} ms`);
    this.name = 'BusTimeoutError';
  }
}

/** A KV create found a live value, or an update found another revision. */
export class KvConflictError extends Error {
  constructor(
    readonly bucket: string,
    readonly key: string,
  ) {
    super(`kv conflict on ${bucket}/${key}`);
    this.name = 'KvConflictError';
  }
}

/** SQLSTATEs of a server shutting down, crashed or still starting (class 57P), besides class 08. */
const DATABASE_DOWN_STATES = new Set(['57P01', '57P02', '57P03']);
/** Socket failures of a server that is gone or not yet back. */
const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Whether an error (or one of its causes, as the query builder wraps the driver's) says that the
 * database is restarting or out of reach: an outage to answer 503 and retry, not a bug.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  let cause = error;
  // Not `instanceof Error`: errors raised by Node's sockets may come from another realm (jest's vm).
  for (let depth = 0; depth < 5 && typeof cause === 'object' && cause !== null; depth += 1) {
    const { code, message } = cause as { code?: unknown; message?: unknown };
    if (typeof code === 'string') {
      if (code.startsWith('08') || DATABASE_DOWN_STATES.has(code)) return true;
      if (CONNECTION_FAILURES.has(code)) return true;
    }
    // pg's message when the server closes a connection it was using, with no code.
    if (typeof message === 'string' && message.startsWith('Connection terminated')) return true;
    cause = (cause as { cause?: unknown }).cause;
  }
  return false;
}
