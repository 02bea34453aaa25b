import { developmentSessionSecret, mintDevelopmentSession, mintSignInLinkToken } from '@wap/auth';
import type { AdminEnv } from '../config';

interface SessionRequest {
  email: string;
  name?: string;
  platformAdmin: boolean;
}

function secretSessionsSecret(env: AdminEnv): string {
  if (env.NODE_ENV === 'production') {
    throw new Error('NODE_ENV=production verifies sessions against an identity provider only');
  }
  return developmentSessionSecret({
    sessionJwtSecret: env.SESSION_JWT_SECRET,
    dataDir: env.DATA_DIR,
  });
}

/** `session`: the cookie `npm run dev:session` prints, minted the same way (DEV_SIGN_IN=on only). */
export async function developmentSessionCookie(
  env: AdminEnv,
  request: SessionRequest,
): Promise<{ cookie: string }> {
  if (env.DEV_SIGN_IN !== 'on') {
    throw new Error('development sessions need DEV_SIGN_IN=on, as the gateway has it');
  }
  const secret = secretSessionsSecret(env);
  return { cookie: await mintDevelopmentSession({ ...request, secret }) };
}

/** `sign-in-link`: a one-time link to the gateway's `/session/link` (decision 117). */
export async function signInLink(
  env: AdminEnv,
  request: SessionRequest,
): Promise<{ link: string }> {
  const token = await mintSignInLinkToken({ ...request, sessionSecret: secretSessionsSecret(env) });
  const link = new URL('/session/link', env.PUBLIC_BASE_URL);
  link.searchParams.set('token', token);
  return { link: link.href };
}
