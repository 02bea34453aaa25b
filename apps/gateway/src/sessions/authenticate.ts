import { AppError, type Actor, type RouteSpec } from '@wap/contracts';
import type { SessionClaims } from '@wap/auth';
import { readCookie } from './cookies';

/** What authenticating reads of a request: its headers, and the route it asks for. */
export interface RequestToAuthenticate {
  header(name: string): string | undefined;
  route: Pick<RouteSpec, 'extensionToken'>;
}

export interface SessionAuthenticator {
  /** The caller of a session route, or a 401 AppError. */
  authenticate(request: RequestToAuthenticate): Promise<Actor>;
}

const API_KEY_PREFIX = 'sk_';
const BEARER = /^bearer\s+(\S+)$/i;

/**
 * Session routes take the `session` cookie, and the browser extension's bearer token where the
 * route does not refuse it (decision 128); a bearer, when sent, is the credential, whatever
 * cookie comes with it. A workspace API key is refused wherever it is carried: keys are for the
 * MCP server only. Where the request came from is the edge's check, made before this
 * (decision 118).
 */
export function createSessionAuthenticator(deps: {
  verify: (token: string) => Promise<SessionClaims>;
  /** Whether the session was signed out on the server (a copied cookie stops working). */
  isRevoked: (token: string, claims: SessionClaims) => boolean;
  resolveActor: (claims: SessionClaims) => Promise<Actor>;
  authenticateExtensionToken: (token: string) => Promise<Actor>;
}): SessionAuthenticator {
  return {
    async authenticate(request) {
      const bearer = BEARER.exec(request.header('authorization')?.trim() ?? '')?.[1];
      if (bearer?.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      if (bearer) {
        if (request.route.extensionToken === 'refused') {
          throw new AppError('UNAUTHORIZED', 'This route takes the session cookie only');
        }
        return deps.authenticateExtensionToken(bearer);
      }
      const token = readCookie(request.header('cookie'), 'session');
      if (!token) throw new AppError('UNAUTHORIZED', 'Authentication required');
      if (token.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHORIZED', 'API keys are accepted only by the MCP server');
      }
      const claims = await deps.verify(token);
      if (deps.isRevoked(token, claims)) {
        throw new AppError('UNAUTHORIZED', 'This session was signed out');
      }
      return deps.resolveActor(claims);
    },
  };
}
