import type { SessionClaims } from '@wap/auth';

/** A verified token is trusted again without re-verifying for at most this long. */
const MAX_REUSE_MS = 5 * 60_000;
const MAX_ENTRIES = 10_000;

/**
 * Remembers tokens that verified, so a session's every request does not pay for a signature
 * check (the gateway's largest per-request cost). An entry is reused until the token expires
 * or for five minutes, whichever comes first, so a signing key withdrawn from the JWKS stops
 * being honoured within minutes. Failures are never cached: they run the full check each time.
 */
export function cacheVerifiedSessions(
  verify: (token: string) => Promise<SessionClaims>,
  now: () => number,
): (token: string) => Promise<SessionClaims> {
  const verified = new Map<string, { claims: SessionClaims; reuseUntil: number }>();

  return async (token) => {
    const cached = verified.get(token);
    if (cached && cached.reuseUntil > now()) return cached.claims;
    if (cached) verified.delete(token);
    const claims = await verify(token);
    if (verified.size >= MAX_ENTRIES) {
      const oldest = verified.keys().next().value;
      if (oldest !== undefined) verified.delete(oldest);
    }
    verified.set(token, { claims, reuseUntil: Math.min(claims.exp * 1000, now() + MAX_REUSE_MS) });
    return claims;
  };
}
