import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { SessionClaims } from '@wap/auth';
import { SESSION_REVOCATIONS_BUCKET, SESSION_REVOCATIONS_TTL_MS } from '@wap/contracts';
import { createKvMirror, encodeJson, type Kv } from '@wap/platform';

const Revocation = z.object({
  /** A signed-out session: when its token expires anyway (epoch seconds). */
  exp: z.number().optional(),
  /**
   * "Sign out everywhere": sessions issued before this second are refused (epoch seconds): the
   * second after the sign-out's, since `iat` counts whole seconds and one issued within the same
   * second may have come before it. A sign-in in that second needs doing again.
   */
  notBefore: z.number().optional(),
});

const digest = (value: string) => createHash('sha256').update(value).digest('hex');
const tokenKey = (token: string) => `token.${digest(token)}`;
const subjectKey = (subject: string) => `subject.${digest(subject)}`;

export interface SessionRevocations {
  /** Whether a verified session was signed out, alone or with all of its person's sessions. */
  isRevoked(token: string, claims: SessionClaims): boolean;
  /** Signs one session out, on every replica. */
  revoke(token: string, claims: SessionClaims): Promise<void>;
  /** Signs out every session of the subject issued up to now, on every replica. */
  revokeAll(subject: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Server-side sign-out (issue 41): the gateway writes revocations to its KV bucket and every
 * replica keeps a watched copy, so the check on each request is a map lookup. The replica that
 * writes one reads it back before answering, so the sign-out holds there at once; the others
 * see it as soon as the watch delivers it.
 */
export async function createSessionRevocations(deps: {
  kv: Kv;
  logger: Logger;
  nowMs: () => number;
}): Promise<SessionRevocations> {
  const bucket = await deps.kv.bucket(SESSION_REVOCATIONS_BUCKET, {
    ttlMs: SESSION_REVOCATIONS_TTL_MS,
  });
  const mirror = await createKvMirror({
    kv: deps.kv,
    bucket: SESSION_REVOCATIONS_BUCKET,
    schema: Revocation,
    logger: deps.logger,
  });

  async function write(key: string, value: z.infer<typeof Revocation>): Promise<void> {
    await bucket.put(key, encodeJson(value));
    await mirror.confirmed(key);
  }

  return {
    isRevoked(token, claims) {
      if (mirror.cached(tokenKey(token))) return true;
      const notBefore = mirror.cached(subjectKey(claims.sub))?.notBefore;
      // A token without `iat` cannot show it came after: refused once its person signed out.
      return notBefore !== undefined && (claims.iat ?? 0) < notBefore;
    },
    revoke: (token, claims) => write(tokenKey(token), { exp: claims.exp }),
    revokeAll: (subject) =>
      write(subjectKey(subject), { notBefore: Math.floor(deps.nowMs() / 1000) + 1 }),
    stop: () => mirror.stop(),
  };
}
