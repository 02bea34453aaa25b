import { createHmac, randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { developmentSubject } from './session';

/** A sign-in link is good for ten minutes, and once (decision 117). */
export const SIGN_IN_LINK_LIFETIME_SECONDS = 600;

const LINK_TYPE = 'wap-sign-in-link';

/**
 * Links are signed with a key derived from the session secret, never the secret itself: a
 * link is not a session, and a session is not a link, whatever claims either carries.
 */
function linkKey(sessionSecret: string): Uint8Array {
  return createHmac('sha256', sessionSecret).update(LINK_TYPE).digest();
}

const LinkClaims = z.object({
  sub: z.string().min(1),
  email: z.string().min(1),
  name: z.string(),
  platform_admin: z.boolean().optional(),
  jti: z.string().min(1),
  exp: z.number(),
});

/** Whom a verified link signs in, and which use of it this is. */
export interface SignInLinkClaims {
  sub: string;
  email: string;
  name: string;
  platformAdmin: boolean;
  jti: string;
  exp: number;
}

/** The token of a one-time sign-in link for a development identity, minted by an operator. */
export async function mintSignInLinkToken(options: {
  sessionSecret: string;
  email: string;
  name?: string;
  platformAdmin: boolean;
}): Promise<string> {
  if (!/^[^@\s]+@[^@\s]+$/.test(options.email)) {
    throw new Error(`not an email address: ${options.email}`);
  }
  const email = options.email.toLowerCase();
  const claims: Record<string, unknown> = { email, name: options.name ?? email.split('@')[0] };
  if (options.platformAdmin) claims.platform_admin = true;
  const issuedAtSec = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: LINK_TYPE })
    .setSubject(developmentSubject(email))
    .setJti(randomUUID())
    .setIssuedAt(issuedAtSec)
    .setExpirationTime(issuedAtSec + SIGN_IN_LINK_LIFETIME_SECONDS)
    .sign(linkKey(options.sessionSecret));
}

/** The link's claims, or undefined for a token that is not a live link under this secret. */
export async function verifySignInLinkToken(
  sessionSecret: string,
  token: string,
): Promise<SignInLinkClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, linkKey(sessionSecret), {
      algorithms: ['HS256'],
      typ: LINK_TYPE,
      requiredClaims: ['exp', 'jti', 'sub'],
      maxTokenAge: SIGN_IN_LINK_LIFETIME_SECONDS + 5,
    });
    const claims = LinkClaims.parse(payload);
    return {
      sub: claims.sub,
      email: claims.email,
      name: claims.name,
      platformAdmin: claims.platform_admin === true,
      jti: claims.jti,
      exp: claims.exp,
    };
  } catch {
    return undefined;
  }
}
