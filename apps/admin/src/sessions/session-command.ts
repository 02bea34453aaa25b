import { developmentSessionSecret, mintDevelopmentSession } from '@wap/auth';
import type { AdminEnv } from '../config';

/** `session`: the cookie `npm run dev:session` prints, minted the same way. */
export async function developmentSessionCookie(
  env: AdminEnv,
  request: { email: string; name?: string; platformAdmin: boolean },
): Promise<{ cookie: string }> {
  if (env.NODE_ENV === 'production') {
    throw new Error('development sessions are refused when NODE_ENV=production');
  }
  const secret = developmentSessionSecret({
    sessionJwtSecret: env.SESSION_JWT_SECRET,
    dataDir: env.DATA_DIR,
  });
  return { cookie: await mintDevelopmentSession({ ...request, secret }) };
}
