import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Who may read a process's `GET /metrics` (decision 93): bearers of a token, anyone, or nobody
 * (not served). Production never serves it open (decision 121).
 */
export type MetricsAccess = { kind: 'token'; token: string } | { kind: 'open' } | { kind: 'none' };

/** METRICS_TOKEN when set; without it, open outside production and not served in production. */
export function metricsAccessOf(options: { token?: string; production: boolean }): MetricsAccess {
  if (options.token) return { kind: 'token', token: options.token };
  return options.production ? { kind: 'none' } : { kind: 'open' };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * Whether a request with this Authorization header may read the metrics: `hidden` when they
 * are not served at all, `refused` without the right bearer token.
 */
export function metricsCheck(
  access: MetricsAccess,
): (authorization: string | undefined) => 'allowed' | 'refused' | 'hidden' {
  if (access.kind === 'none') return () => 'hidden';
  if (access.kind === 'open') return () => 'allowed';
  const expected = digest(access.token);
  return (authorization) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    // Digests of equal length compare in constant time whatever was presented.
    return presented && timingSafeEqual(digest(presented), expected) ? 'allowed' : 'refused';
  };
}
