import type { Logger } from 'pino';
import type { CredentialKeyring } from '@wap/auth';
import {
  EgressBlockedError,
  assertPublicUrl,
  type EgressAllowlist,
  type GuardedFetch,
} from '@wap/egress';
import type { AccountOAuth } from '../accounts/oauth';
import { CredentialUnavailableError, connectionHeaders, withPrefix } from '../servers/credentials';
import type { ServerRecord } from '../servers/repository';
import { connectToServer, httpStatusOf, type McpConnection } from './connector';

export interface ConnectionDeps {
  keyring: CredentialKeyring;
  envAllowlist: ReadonlySet<string>;
  egressAllowlist: EgressAllowlist;
  environment: Readonly<Record<string, string | undefined>>;
  /** The calling users' tokens for servers of the account auth type. */
  accounts: Pick<AccountOAuth, 'accessToken'>;
  fetch: GuardedFetch;
  connectTimeoutMs: number;
  logger: Logger;
}

/**
 * Opens a connection to a registered server: SSRF check, credentials decrypted, SDK connect.
 * `userId` is the person the connection acts for: an account server gets their own token.
 */
export type Connect = (
  server: ServerRecord,
  options?: { onToolsChanged?: () => void; userId?: string },
) => Promise<McpConnection>;

/**
 * A fetch that puts the user's current token on every request: a pooled session outlives an
 * access token, and each request asks again (refreshed when it is about to expire).
 */
function withFreshToken(
  fetch: GuardedFetch,
  server: ServerRecord,
  accountToken: () => Promise<string>,
): GuardedFetch {
  const headerName = server.auth.authHeaderName ?? 'Authorization';
  const sending = async (input: string | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set(headerName, withPrefix(server.auth.authPrefix, headerName, await accountToken()));
    return fetch(input, { ...init, headers });
  };
  return Object.assign(sending, { close: () => Promise.resolve() });
}

export function createConnect(deps: ConnectionDeps): Connect {
  return async (server, options = {}) => {
    // Checked at every connect, not only at registration: DNS may point elsewhere by now.
    await assertPublicUrl(server.serverUrl, { allowlist: deps.egressAllowlist });
    const { userId } = options;
    const accountToken =
      server.auth.authType === 'account' && userId
        ? () => deps.accounts.accessToken(server, userId)
        : undefined;
    // Asked once before connecting, so that a user without a connection gets that reason.
    const headers = await connectionHeaders(
      {
        workspaceId: server.workspaceId,
        id: server.id,
        auth: server.auth,
        sealedHeaders: server.sealedHeaders,
      },
      { ...deps, accountToken },
    );
    return connectToServer({
      url: server.serverUrl,
      headers,
      fetch: accountToken ? withFreshToken(deps.fetch, server, accountToken) : deps.fetch,
      connectTimeoutMs: deps.connectTimeoutMs,
      onToolsChanged: options.onToolsChanged,
    });
  };
}

/** An error and the causes under it, outermost first (at most five). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let current: unknown = error;
  while (current && chain.length < 5) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/**
 * The code of a network failure in an error's causes: errno codes (ECONNREFUSED) and undici's
 * (UND_ERR_CONNECT_TIMEOUT), not the SDK's own codes.
 */
export function networkErrorCode(chain: unknown[]): string | undefined {
  for (const entry of chain) {
    const code = (entry as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
  }
  return undefined;
}

/** True when a credential the call needs could not be had (a person's account not connected). */
export function credentialWasUnavailable(error: unknown): boolean {
  return causeChain(error).some((entry) => entry instanceof CredentialUnavailableError);
}

/**
 * A message for a failed connect or call that is safe to store and show: no response bodies, no
 * header values, only what went wrong.
 */
export function describeFailure(error: unknown, timeoutMs?: number): string {
  const chain = causeChain(error);
  if (chain.some((entry) => entry instanceof EgressBlockedError)) {
    return 'The server URL does not resolve to a public address';
  }
  const unavailable = chain.find((entry) => entry instanceof CredentialUnavailableError);
  if (unavailable) return (unavailable as Error).message;
  const status = httpStatusOf(error);
  if (status === 401) return 'The server refused the credentials (HTTP 401)';
  if (status === 403) return 'The server denied access (HTTP 403)';
  if (status !== undefined) return `The server answered HTTP ${status}`;
  const network = networkErrorCode(chain);
  if (network) return `The server could not be reached (${network})`;
  const message = error instanceof Error ? error.message : String(error);
  if (/timed? ?out/i.test(message)) {
    return timeoutMs ? `The server did not answer within ${timeoutMs} ms` : 'The server timed out';
  }
  return `The server could not be used: ${message.split('\n')[0]?.slice(0, 200) ?? ''}`;
}
