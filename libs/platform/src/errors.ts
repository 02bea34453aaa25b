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
