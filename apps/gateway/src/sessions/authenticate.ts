import type { Request } from 'express';
import { AppError, type Actor } from '@wap/contracts';
import type { SessionClaims } from '@wap/auth';
import { isUnsafeMethod, type RequestSiteCheck } from '../http/request-site';
import { readCookie } from './cookies';

export interface SessionAuthenticator {
  /** The caller of a session route, or a 401 AppError. */
  authenticate(req: Request): Promise<Actor>;
}

const API_KEY_PREFIX = 'sk_';

/**
 * Session routes take only the `session` cookie. A workspace API key is refused wherever it is
 * carried (cookie or Authorization header): keys are for the MCP server only. A browser sends
 * the cookie whichever page asks, so an unsafe request from a page of another site is refused
 * (403) before its cookie is looked at.
 */
export function createSessionAuthenticator(deps: {
  verify: (token: string) => Promise<SessionClaims>;
  resolveActor: (claims: SessionClaims) => Promise<Actor>;
  isFromTrustedSite: RequestSiteCheck;
}): SessionAuthenticator {
  return {
    async authenticate(req) {
      const authorization = req.get('authorization');
      if (authorization && /^bearer\s+sk_/i.test(authorization.trim())) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      const token = readCookie(req.get('cookie'), 'session');
      if (!token) throw new AppError('UNAUTHORIZED', 'Authentication required');
      if (isUnsafeMethod(req.method) && !deps.isFromTrustedSite(req)) {
        throw new AppError('FORBIDDEN', 'Cross-site request refused');
      }
      if (token.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      const claims = await deps.verify(token);
      return deps.resolveActor(claims);
    },
  };
}
