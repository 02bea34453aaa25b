import { AppError, type Actor } from '@wap/contracts';
import type { SessionClaims } from '@wap/auth';
import { readCookie } from './cookies';

/** What authenticating reads of a request: its headers. */
export interface RequestHeaders {
  header(name: string): string | undefined;
}

export interface SessionAuthenticator {
  /** The caller of a session route, or a 401 AppError. */
  authenticate(request: RequestHeaders): Promise<Actor>;
}

const API_KEY_PREFIX = 'sk_';

/**
 * Session routes take only the `session` cookie. A workspace API key is refused wherever it is
 * carried (cookie or Authorization header): keys are for the MCP server only. Where the request
 * came from is the edge's check, made before this (decision 118).
 */
export function createSessionAuthenticator(deps: {
  verify: (token: string) => Promise<SessionClaims>;
  resolveActor: (claims: SessionClaims) => Promise<Actor>;
}): SessionAuthenticator {
  return {
    async authenticate(request) {
      const authorization = request.header('authorization');
      if (authorization && /^bearer\s+sk_/i.test(authorization.trim())) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      const token = readCookie(request.header('cookie'), 'session');
      if (!token) throw new AppError('UNAUTHORIZED', 'Authentication required');
      if (token.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      const claims = await deps.verify(token);
      return deps.resolveActor(claims);
    },
  };
}
