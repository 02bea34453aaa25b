import { createHmac } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/**
 * The browser extension's bearer token (spec, Authentication): a JWT whose payload says
 * `type = extension`, `iss = <issuer_name>`, `aud = <issuer_name>-extension`, and expires 30
 * days after issue. `sub` names the person (their user id) and `jti` the token's record, which
 * is what revocation turns off (decision 128).
 */
export const EXTENSION_TOKEN_TYPE = 'extension';

/** Where the platform's extension tokens come from, and the key they are signed with. */
export interface ExtensionTokenIssuer {
  /** Dedicated to these tokens: a session secret or any other key is never reused for them. */
  secret: string;
  /** The spec's `<issuer_name>`; the audience is `<issuer_name>-extension`. */
  issuer: string;
}

const SIGNING_ALGORITHM = 'HS256';

/** A key of its own, derived from the secret, so that no other token type verifies under it. */
function signingKey(secret: string): Uint8Array {
  return createHmac('sha256', secret).update('wap-extension-token').digest();
}

export function extensionAudience(issuer: string): string {
  return `${issuer}-extension`;
}

export async function signExtensionToken(
  issuer: ExtensionTokenIssuer,
  token: { userId: string; tokenId: string; issuedAt: Date; expiresAt: Date },
): Promise<string> {
  return new SignJWT({ type: EXTENSION_TOKEN_TYPE })
    .setProtectedHeader({ alg: SIGNING_ALGORITHM, typ: 'JWT' })
    .setIssuer(issuer.issuer)
    .setAudience(extensionAudience(issuer.issuer))
    .setSubject(token.userId)
    .setJti(token.tokenId)
    .setIssuedAt(Math.floor(token.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(token.expiresAt.getTime() / 1000))
    .sign(signingKey(issuer.secret));
}

const ExtensionClaims = z.object({
  type: z.literal(EXTENSION_TOKEN_TYPE),
  sub: z.uuid(),
  jti: z.uuid(),
  exp: z.number(),
});

export type ExtensionTokenVerdict =
  | { valid: true; userId: string; tokenId: string }
  | { valid: false; reason: 'expired' | 'invalid' };

/**
 * Checks the signature, issuer, audience, type and expiry. `expired` is said only of a token
 * whose signature and claims are otherwise right, so a forged token never learns more than
 * `invalid`.
 */
export async function verifyExtensionToken(
  issuer: ExtensionTokenIssuer,
  token: string,
  now: Date,
): Promise<ExtensionTokenVerdict> {
  try {
    const { payload } = await jwtVerify(token, signingKey(issuer.secret), {
      algorithms: [SIGNING_ALGORITHM],
      issuer: issuer.issuer,
      audience: extensionAudience(issuer.issuer),
      requiredClaims: ['exp', 'iat', 'jti', 'sub'],
      currentDate: now,
      clockTolerance: 5,
    });
    const claims = ExtensionClaims.safeParse(payload);
    if (!claims.success) return { valid: false, reason: 'invalid' };
    return { valid: true, userId: claims.data.sub, tokenId: claims.data.jti };
  } catch (error) {
    return { valid: false, reason: error instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}
