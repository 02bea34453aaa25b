import type { Express } from 'express';
import { sessionCookie } from '../sessions/cookies';

/**
 * How a person signs in, for the web app's sign-in page: `development` is the email form of
 * `GET /dev/sign-in`; `identity_provider` means the session cookie is set by the identity
 * provider's sign-in flow in front of the platform (SESSION_JWKS_URL).
 */
export type SignInMethod = 'development' | 'identity_provider';

/**
 * The web app's session edge: `GET /session/sign-in-method` and `POST /session/sign-out`,
 * which answers 204 with the `session` cookie expired (same name, path and attributes as the
 * one sign-in set, so the browser drops it). Neither needs a session.
 */
export function mountSessionRoutes(
  app: Express,
  options: { signInMethod: SignInMethod; secureCookie: boolean },
): void {
  app.get('/session/sign-in-method', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ method: options.signInMethod });
  });
  app.post('/session/sign-out', (_req, res) => {
    res.setHeader('Set-Cookie', sessionCookie('', { secure: options.secureCookie, maxAgeSec: 0 }));
    res.setHeader('Cache-Control', 'no-store');
    res.status(204).end();
  });
}
