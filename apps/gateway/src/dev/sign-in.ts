import type { Express } from 'express';
import { z } from 'zod';
import { developmentSubject, mintSessionToken } from '@wap/auth';
import { validate } from '@wap/http';
import { sessionCookie } from '../sessions/cookies';

const SignInQuery = z.object({
  email: z.email().max(320),
  name: z.string().trim().max(200).optional(),
});

const DEV_SESSION_LIFETIME_SEC = 7 * 24 * 3600;

/**
 * Development sign-in: sets a session cookie for any email and redirects to `/`. Only mounted
 * outside production and only with an HS256 session secret (never with a real identity provider).
 */
export function mountDevSignIn(
  app: Express,
  options: { secret: string; issuer?: string; audience?: string; secureCookie: boolean },
): void {
  app.get('/dev/sign-in', async (req, res, next) => {
    try {
      const query = validate(SignInQuery, req.query, 'query');
      const email = query.email.toLowerCase();
      const token = await mintSessionToken({
        secret: options.secret,
        sub: developmentSubject(email),
        email,
        name: query.name || email.split('@')[0] || email,
        issuer: options.issuer,
        audience: options.audience,
        expiresInSec: DEV_SESSION_LIFETIME_SEC,
      });
      res.setHeader(
        'Set-Cookie',
        sessionCookie(token, { secure: options.secureCookie, maxAgeSec: DEV_SESSION_LIFETIME_SEC }),
      );
      res.redirect(302, '/');
    } catch (error) {
      next(error);
    }
  });
}
