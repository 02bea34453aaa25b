import type { Express } from 'express';
import { AppError } from '@wap/contracts';
import type { RequestSiteCheck } from '@wap/http';
import { sessionCookie } from '../sessions/cookies';

/**
 * How a person signs in, for the web app's sign-in page: `development` is the email form of
 * `GET /dev/sign-in` (DEV_SIGN_IN=on); `sign_in_link` a one-time link an operator mints
 * (secret-signed sessions without the development sign-in); `identity_provider` means the
 * session cookie is set by the identity provider's sign-in flow in front of the platform
 * (SESSION_JWKS_URL).
 */
export type SignInMethod = 'development' | 'sign_in_link' | 'identity_provider';

/**
 * The web app's session edge: `GET /session/sign-in-method` and `POST /session/sign-out`,
 * which answers 204 with the `session` cookie expired (403 for a page of another site) (same name, path and attributes as the
 * one sign-in set, so the browser drops it). Neither needs a session.
 */
export function mountSessionRoutes(
  app: Express,
  options: {
    signInMethod: SignInMethod;
    secureCookie: boolean;
    isFromTrustedSite: RequestSiteCheck;
  },
): void {
  app.get('/session/sign-in-method', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ method: options.signInMethod });
  });
  app.post('/session/sign-out', (req, res) => {
    if (!options.isFromTrustedSite(req)) {
      throw new AppError('FORBIDDEN', 'Sign-out from another site refused');
    }
    res.setHeader('Set-Cookie', sessionCookie('', { secure: options.secureCookie, maxAgeSec: 0 }));
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });
}
