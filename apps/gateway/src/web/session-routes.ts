import type { Express, Request, Response } from 'express';
import type { SessionClaims } from '@wap/auth';
import { AppError } from '@wap/contracts';
import type { RequestSiteCheck } from '@wap/http';
import { readCookie, sessionCookie } from '../sessions/cookies';
import type { SessionRevocations } from '../sessions/revocations';

/**
 * How a person signs in, for the web app's sign-in page: `development` is the email form of
 * `GET /dev/sign-in` (DEV_SIGN_IN=on); `sign_in_link` a one-time link an operator mints
 * (secret-signed sessions without the development sign-in); `identity_provider` means the
 * session cookie is set by the identity provider's sign-in flow in front of the platform
 * (SESSION_JWKS_URL).
 */
export type SignInMethod = 'development' | 'sign_in_link' | 'identity_provider';

/** The session cookie's token and claims, when it holds a valid session. */
async function presentedSession(
  req: Request,
  verify: (token: string) => Promise<SessionClaims>,
): Promise<{ token: string; claims: SessionClaims } | undefined> {
  const token = readCookie(req.header('cookie'), 'session');
  if (!token) return undefined;
  try {
    return { token, claims: await verify(token) };
  } catch (error) {
    // An expired or forged cookie is no session to sign out; a key source that is down is.
    if (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE') throw error;
    return undefined;
  }
}

function signedOut(res: Response, secureCookie: boolean): void {
  res.setHeader('Set-Cookie', sessionCookie('', { secure: secureCookie, maxAgeSec: 0 }));
  res.setHeader('Cache-Control', 'no-store');
  res.status(204).end();
}

/**
 * The web app's session edge: `GET /session/sign-in-method`; `POST /session/sign-out`, which
 * revokes the presented session on every replica and answers 204 with the `session` cookie
 * expired (same name, path and attributes as the one sign-in set, so the browser drops it), a
 * copied cookie then refused too; `POST /session/sign-out-everywhere`, which does so for every
 * session of the person issued until now (401 without a session). Both refuse a page of
 * another site (403).
 */
export function mountSessionRoutes(
  app: Express,
  options: {
    signInMethod: SignInMethod;
    secureCookie: boolean;
    isFromTrustedSite: RequestSiteCheck;
    verify: (token: string) => Promise<SessionClaims>;
    revocations: SessionRevocations;
  },
): void {
  const { revocations } = options;
  app.get('/session/sign-in-method', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ method: options.signInMethod });
  });
  app.post('/session/sign-out', async (req, res) => {
    if (!options.isFromTrustedSite(req)) {
      throw new AppError('FORBIDDEN', 'Sign-out from another site refused');
    }
    const session = await presentedSession(req, options.verify);
    if (session) await revocations.revoke(session.token, session.claims);
    signedOut(res, options.secureCookie);
  });
  app.post('/session/sign-out-everywhere', async (req, res) => {
    if (!options.isFromTrustedSite(req)) {
      throw new AppError('FORBIDDEN', 'Sign-out from another site refused');
    }
    const session = await presentedSession(req, options.verify);
    if (!session || revocations.isRevoked(session.token, session.claims)) {
      throw new AppError('UNAUTHORIZED', 'Authentication required');
    }
    await revocations.revokeAll(session.claims.sub);
    signedOut(res, options.secureCookie);
  });
}
