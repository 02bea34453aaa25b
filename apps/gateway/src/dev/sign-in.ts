import type { Express, Response } from 'express';
import { z } from 'zod';
import { AppError } from '@wap/contracts';
import { developmentSubject, mintSessionToken, verifySignInLinkToken } from '@wap/auth';
import { validate } from '@wap/http';
import type { RequestSiteCheck } from '@wap/http';
import type { Clock } from '@wap/platform';
import { sessionCookie } from '../sessions/cookies';

const SignInQuery = z.object({
  email: z.email().max(320),
  name: z.string().trim().max(200).optional(),
});

const LinkQuery = z.object({ token: z.string().min(1).max(4096) });

const DEV_SESSION_LIFETIME_SEC = 7 * 24 * 3600;

interface SecretSessionOptions {
  secret: string;
  issuer?: string;
  audience?: string;
  secureCookie: boolean;
  isFromTrustedSite: RequestSiteCheck;
  clock: Clock;
}

async function signIn(
  res: Response,
  options: SecretSessionOptions,
  person: { sub: string; email: string; name: string; platformAdmin?: boolean },
): Promise<void> {
  const token = await mintSessionToken({
    secret: options.secret,
    ...person,
    issuer: options.issuer,
    audience: options.audience,
    expiresInSec: DEV_SESSION_LIFETIME_SEC,
  });
  res.setHeader(
    'Set-Cookie',
    sessionCookie(token, { secure: options.secureCookie, maxAgeSec: DEV_SESSION_LIFETIME_SEC }),
  );
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.redirect(303, '/');
}

/** A page of another site may link here, but must not sign its visitor in (login CSRF). */
function refuseForeignPages(options: SecretSessionOptions) {
  return (req: Parameters<RequestSiteCheck>[0]): void => {
    if (!options.isFromTrustedSite(req)) {
      throw new AppError('FORBIDDEN', 'Sign-in from another site refused');
    }
  };
}

/**
 * Development sign-in (DEV_SIGN_IN=on only, decision 117): sets a session cookie for any email
 * and redirects to `/`. A GET, as the supporting API has it, so a browser's address bar and the
 * web app's own form reach it; a page of another site cannot (403).
 */
export function mountDevSignIn(app: Express, options: SecretSessionOptions): void {
  const refuseForeign = refuseForeignPages(options);
  app.get('/dev/sign-in', async (req, res, next) => {
    try {
      refuseForeign(req);
      const query = validate(SignInQuery, req.query, 'query');
      const email = query.email.toLowerCase();
      await signIn(res, options, {
        sub: developmentSubject(email),
        email,
        name: query.name || email.split('@')[0] || email,
      });
    } catch (error) {
      next(error);
    }
  });
}

/**
 * One-time sign-in links (`npm run admin -- sign-in-link <email>`), for deployments with
 * secret-signed sessions and no development sign-in, such as the compose file: ten minutes,
 * one use per gateway process (decision 117).
 */
export function mountSignInLinks(app: Express, options: SecretSessionOptions): void {
  const refuseForeign = refuseForeignPages(options);
  const usedUntil = new Map<string, number>();
  app.get('/session/link', async (req, res, next) => {
    try {
      refuseForeign(req);
      const { token } = validate(LinkQuery, req.query, 'query');
      const link = await verifySignInLinkToken(options.secret, token);
      const nowSec = options.clock.now().getTime() / 1000;
      for (const [jti, exp] of usedUntil) if (exp < nowSec) usedUntil.delete(jti);
      if (!link || usedUntil.has(link.jti)) {
        throw new AppError('UNAUTHORIZED', 'This sign-in link is used, expired or not valid');
      }
      usedUntil.set(link.jti, link.exp);
      const { sub, email, name, platformAdmin } = link;
      await signIn(res, options, { sub, email, name, platformAdmin });
    } catch (error) {
      next(error);
    }
  });
}
