import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import {
  OAuthError,
  checkResourceAllowed,
  discoverOAuthServerInfo,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  resourceUrlFromServerUrl,
  startAuthorization,
  type AuthorizationServerMetadata,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { openSecret, sealSecret, type CredentialKeyring } from '@wap/auth';
import { AppError } from '@wap/contracts';
import { EgressBlockedError, type GuardedFetch } from '@wap/egress';
import type { Clock } from '@wap/platform';
import { CredentialUnavailableError, secretContext } from '../servers/credentials';
import type { ServerRecord } from '../servers/repository';
import { causeChain, networkErrorCode } from '../sync/connections';
import type { AccountConnectionRecord, AccountRepository, OAuthClientRecord } from './repository';

/** How long a started authorization waits for the user to come back with a code. */
const AUTHORIZATION_TTL_MS = 10 * 60_000;
/** A token is refreshed when this little of its life is left, or a quarter of it if less. */
const REFRESH_MARGIN_MS = 60_000;
/** Longest wait for one answer of an authorization server (a refresh holds a row lock). */
const REQUEST_TIMEOUT_MS = 10_000;

const CLIENT_NAME = 'Workspace Automation Platform';

interface SealedTokens {
  access_token: string;
  refresh_token?: string;
}

export interface AccountOAuthDeps {
  repository: AccountRepository;
  keyring: CredentialKeyring;
  /** The SSRF-guarded fetch: every discovery, registration and token request goes through it. */
  fetch: GuardedFetch;
  /** The web app's callback page, registered with each authorization server. */
  redirectUri: string;
  clock: Clock;
  logger: Logger;
}

export type AccountOAuth = ReturnType<typeof createAccountOAuth>;

const tokensContext = (server: ServerRecord, userId: string) =>
  secretContext(server.workspaceId, server.id, `account/${userId}`);
const verifierContext = (server: ServerRecord, userId: string) =>
  secretContext(server.workspaceId, server.id, `pkce/${userId}`);
const clientSecretContext = (server: ServerRecord) =>
  secretContext(server.workspaceId, server.id, 'oauth-client');

/** A browser may be sent, and a token posted, only to https (or to this machine, for development). */
function isSecureEndpoint(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (
      url.protocol === 'https:' ||
      (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
    );
  } catch {
    return false;
  }
}

/** What went wrong at an authorization server, in words that carry no token or body. */
function oauthFailure(error: unknown): string {
  const chain = causeChain(error);
  if (chain.some((entry) => entry instanceof EgressBlockedError)) {
    return 'it is not at a public address';
  }
  const oauth = chain.find((entry) => entry instanceof OAuthError);
  if (oauth) return `it answered ${String((oauth as OAuthError).code).replace(/[^\w.-]/g, '')}`;
  const network = networkErrorCode(chain);
  return network ? `it could not be reached (${network})` : 'it could not be used';
}

/**
 * Connected accounts by OAuth 2.1, as the MCP authorization specification describes: the
 * server's protected-resource metadata names its authorization server, whose metadata gives the
 * endpoints; the platform registers itself as a client there (dynamic client registration), and
 * each user authorizes with the authorization code grant and PKCE. Tokens are sealed per user
 * and refreshed before they expire; disconnecting revokes them (decision 138).
 */
/* eslint-disable-next-line max-lines-per-function --
  the OAuth flows' short steps share the pending-flow table and the per-account refresh locks */
export function createAccountOAuth(deps: AccountOAuthDeps) {
  const { repository, keyring, clock, logger } = deps;
  const fetchFn = (url: string | URL, init?: RequestInit) =>
    deps.fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  /** Refreshes under way in this process, so that concurrent calls share one. */
  const refreshing = new Map<string, Promise<AccountConnectionRecord | null>>();
  /** Revocations sent after a disconnect, waited for only when the service stops. */
  const revoking = new Set<Promise<void>>();

  /**
   * Revokes the connections' tokens without making the caller wait. The client is read first:
   * deleting the server right after takes it with the server.
   */
  async function revokeInBackground(
    server: ServerRecord,
    connections: AccountConnectionRecord[],
  ): Promise<void> {
    if (connections.length === 0) return;
    const client = await repository.findClient(server.id);
    const task = revokeAll(server, client, connections).catch((error: unknown) => {
      logger.warn({ err: error, serverId: server.id }, 'connected account revocation failed');
    });
    revoking.add(task);
    void task.finally(() => revoking.delete(task));
  }

  function clientInformation(server: ServerRecord, client: OAuthClientRecord) {
    const information: OAuthClientInformationMixed = { client_id: client.clientId };
    if (client.sealedClientSecret) {
      information.client_secret = openSecret(
        keyring,
        client.sealedClientSecret,
        clientSecretContext(server),
      );
    }
    if (client.tokenEndpointAuthMethod) {
      (information as { token_endpoint_auth_method?: string }).token_endpoint_auth_method =
        client.tokenEndpointAuthMethod;
    }
    return information;
  }

  function failed(server: ServerRecord, what: string, error?: unknown): AppError {
    const reason = error === undefined ? '' : `: ${oauthFailure(error)}`;
    return new AppError(
      'MCP_AUTHORIZATION_FAILED',
      `The authorization server of ${server.name} ${what}${reason}`,
    );
  }

  /** The authorization server, its metadata and the resource to ask tokens for. */
  async function discover(server: ServerRecord) {
    const info = await discoverOAuthServerInfo(server.serverUrl, { fetchFn }).catch(
      (error: unknown) => {
        throw failed(server, 'could not be discovered', error);
      },
    );
    const metadata = info.authorizationServerMetadata;
    if (!metadata) throw failed(server, 'publishes no OAuth metadata');
    if (!isSecureEndpoint(metadata.authorization_endpoint)) {
      throw failed(server, 'has no https authorization endpoint');
    }
    let resource = resourceUrlFromServerUrl(server.serverUrl).href;
    const advertised = info.resourceMetadata?.resource;
    if (advertised) {
      if (!checkResourceAllowed({ requestedResource: resource, configuredResource: advertised })) {
        throw failed(server, `serves another resource (${advertised.slice(0, 200)})`);
      }
      resource = advertised;
    }
    const scope =
      server.auth.authReference ??
      (info.resourceMetadata?.scopes_supported?.length
        ? [
            ...info.resourceMetadata.scopes_supported,
            // Without it an OpenID provider issues no refresh token.
            ...(metadata.scopes_supported?.includes('offline_access') ? ['offline_access'] : []),
          ].join(' ')
        : undefined);
    return { issuer: info.authorizationServerUrl, metadata, resource, scope };
  }

  /** The platform's client at that authorization server: kept, or registered now. */
  async function clientFor(
    server: ServerRecord,
    found: { issuer: string; metadata: AuthorizationServerMetadata; resource: string },
  ): Promise<OAuthClientRecord> {
    const kept = await repository.findClient(server.id);
    if (kept && kept.issuer === found.issuer && kept.redirectUri === deps.redirectUri) {
      const updated = { ...kept, metadata: found.metadata, resource: found.resource };
      await repository.saveClient(updated);
      return updated;
    }
    if (!found.metadata.registration_endpoint) {
      throw failed(server, 'offers no dynamic client registration');
    }
    const registered = await registerClient(found.issuer, {
      metadata: found.metadata,
      clientMetadata: {
        client_name: CLIENT_NAME,
        redirect_uris: [deps.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        application_type: 'web',
      },
      fetchFn,
    }).catch((error: unknown) => {
      throw failed(server, 'refused to register the platform as a client', error);
    });
    const client: OAuthClientRecord = {
      serverId: server.id,
      issuer: found.issuer,
      metadata: found.metadata,
      resource: found.resource,
      clientId: registered.client_id,
      sealedClientSecret: registered.client_secret
        ? sealSecret(keyring, registered.client_secret, clientSecretContext(server))
        : null,
      tokenEndpointAuthMethod: registered.token_endpoint_auth_method ?? null,
      redirectUri: deps.redirectUri,
      registeredAt: clock.now(),
    };
    await repository.saveClient(client);
    logger.info(
      { serverId: server.id, issuer: found.issuer },
      'registered as an OAuth client of an MCP authorization server',
    );
    return client;
  }

  function connectionFrom(
    server: ServerRecord,
    userId: string,
    tokens: OAuthTokens,
    connectedAt: Date,
  ): AccountConnectionRecord {
    if (tokens.token_type.toLowerCase() !== 'bearer') {
      const kind = tokens.token_type.replace(/[^\w-]/g, '').slice(0, 40);
      throw failed(server, `issued ${kind} tokens, not Bearer tokens`);
    }
    const now = clock.now();
    const sealed: SealedTokens = {
      access_token: tokens.access_token,
      ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
    };
    return {
      serverId: server.id,
      userId,
      sealedTokens: sealSecret(keyring, JSON.stringify(sealed), tokensContext(server, userId)),
      scope: tokens.scope ?? null,
      issuedAt: now,
      expiresAt: tokens.expires_in ? new Date(now.getTime() + tokens.expires_in * 1000) : null,
      connectedAt,
    };
  }

  function openTokens(server: ServerRecord, connection: AccountConnectionRecord): SealedTokens {
    return JSON.parse(
      openSecret(keyring, connection.sealedTokens, tokensContext(server, connection.userId)),
    ) as SealedTokens;
  }

  function refreshDue(connection: AccountConnectionRecord): boolean {
    if (!connection.expiresAt) return false;
    const lifetime = connection.expiresAt.getTime() - connection.issuedAt.getTime();
    const margin = Math.min(REFRESH_MARGIN_MS, lifetime / 4);
    return connection.expiresAt.getTime() - clock.now().getTime() <= margin;
  }

  const notConnected = (server: ServerRecord) =>
    new CredentialUnavailableError(
      `Connect your account to ${server.name} first: it uses each person's own account`,
    );
  const expired = (server: ServerRecord) =>
    new CredentialUnavailableError(
      `Your connection to ${server.name} has expired: connect your account again`,
    );

  function refreshed(
    server: ServerRecord,
    userId: string,
  ): Promise<AccountConnectionRecord | null> {
    const key = `${server.id}/${userId}`;
    const running = refreshing.get(key);
    if (running) return running;
    const task = refreshOnce(server, userId).finally(() => refreshing.delete(key));
    refreshing.set(key, task);
    return task;
  }

  /**
   * Refreshes with the connection's row locked: a server that rotates refresh tokens takes each
   * one once, and may end the grant when one comes twice, so replicas take turns. The client is
   * read before the lock (the embedded database has one connection, held by the transaction).
   */
  async function refreshOnce(
    server: ServerRecord,
    userId: string,
  ): Promise<AccountConnectionRecord | null> {
    const client = await repository.findClient(server.id);
    return repository.refreshLocked(server.id, userId, async (current) => {
      // Another replica may have refreshed while this one waited for the lock.
      if (!refreshDue(current)) return 'unchanged';
      const { refresh_token: refreshToken } = openTokens(server, current);
      if (!refreshToken || !client) return null;
      try {
        const tokens = await refreshAuthorization(client.issuer, {
          metadata: client.metadata as AuthorizationServerMetadata,
          clientInformation: clientInformation(server, client),
          refreshToken,
          resource: client.resource,
          fetchFn,
        });
        logger.info({ serverId: server.id, userId }, 'connected account token refreshed');
        return connectionFrom(server, userId, tokens, current.connectedAt);
      } catch (error) {
        if (error instanceof OAuthError && error.code === 'invalid_grant') {
          logger.info({ serverId: server.id, userId }, 'connected account refresh refused');
          return null;
        }
        throw new CredentialUnavailableError(
          `The authorization server of ${server.name} could not refresh your token: ${oauthFailure(error)}`,
        );
      }
    });
  }

  /** RFC 7009 revocation of one token, with the client's own authentication. */
  async function revoke(
    server: ServerRecord,
    client: OAuthClientRecord,
    token: string,
    hint: 'refresh_token' | 'access_token',
  ): Promise<boolean> {
    // RFC 7009's endpoint, advertised under RFC 8414's name (the SDK's type leaves it out).
    const endpoint = client.metadata['revocation_endpoint'];
    if (!isSecureEndpoint(endpoint)) return false;
    const information = clientInformation(server, client);
    const body = new URLSearchParams({ token, token_type_hint: hint });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
    };
    if (information.client_secret && client.tokenEndpointAuthMethod !== 'client_secret_post') {
      const pair = `${encodeURIComponent(information.client_id)}:${encodeURIComponent(information.client_secret)}`;
      headers['authorization'] = `Basic ${Buffer.from(pair).toString('base64')}`;
    } else {
      body.set('client_id', information.client_id);
      if (information.client_secret) body.set('client_secret', information.client_secret);
    }
    try {
      const response = await fetchFn(endpoint, { method: 'POST', headers, body });
      await response.body?.cancel();
      return response.ok;
    } catch {
      return false;
    }
  }

  return {
    /** Starts connecting `userId` to an account server: the URL to open in their browser. */
    async start(server: ServerRecord, userId: string) {
      if (server.auth.authType !== 'account') {
        throw new AppError(
          'MCP_ACCOUNT_NOT_USED',
          `${server.name} does not use connected accounts (its auth type is ${server.auth.authType})`,
        );
      }
      const found = await discover(server);
      const client = await clientFor(server, found);
      const state = randomBytes(32).toString('base64url');
      const { authorizationUrl, codeVerifier } = await startAuthorization(found.issuer, {
        metadata: found.metadata,
        clientInformation: clientInformation(server, client),
        redirectUrl: deps.redirectUri,
        scope: found.scope,
        state,
        resource: found.resource,
      }).catch((error: unknown) => {
        throw failed(server, 'cannot be used for authorization', error);
      });
      const expiresAt = new Date(clock.now().getTime() + AUTHORIZATION_TTL_MS);
      await repository.addPending({
        state,
        serverId: server.id,
        userId,
        sealedCodeVerifier: sealSecret(keyring, codeVerifier, verifierContext(server, userId)),
        expiresAt,
      });
      return { authorizationUrl: authorizationUrl.href, expiresAt };
    },

    /** The server a pending authorization of this user is for, taking it out (good once). */
    async takePending(state: string, userId: string) {
      return repository.takePending(state, userId);
    },

    /** Exchanges the code for tokens and keeps them, sealed, as the user's connection. */
    async complete(
      server: ServerRecord,
      userId: string,
      answer: { code: string; iss?: string; sealedCodeVerifier: string },
    ): Promise<AccountConnectionRecord> {
      const client = await repository.findClient(server.id);
      if (!client) throw failed(server, 'has no client registered for this authorization');
      const tokens = await exchangeAuthorization(client.issuer, {
        metadata: client.metadata as AuthorizationServerMetadata,
        clientInformation: clientInformation(server, client),
        authorizationCode: answer.code,
        iss: answer.iss,
        codeVerifier: openSecret(
          keyring,
          answer.sealedCodeVerifier,
          verifierContext(server, userId),
        ),
        redirectUri: client.redirectUri,
        resource: client.resource,
        fetchFn,
      }).catch((error: unknown) => {
        throw failed(server, 'gave no tokens for the code', error);
      });
      const connection = connectionFrom(server, userId, tokens, clock.now());
      await repository.saveConnection(connection);
      logger.info({ serverId: server.id, userId }, 'account connected to an MCP server');
      return connection;
    },

    connection(server: ServerRecord, userId: string) {
      return repository.findConnection(server.id, userId);
    },

    /**
     * The user's access token for the server, refreshed first when it is about to expire; a
     * CredentialUnavailableError naming the server when they have no usable connection.
     */
    async accessToken(server: ServerRecord, userId: string): Promise<string> {
      let connection = await repository.findConnection(server.id, userId);
      if (!connection) throw notConnected(server);
      if (refreshDue(connection)) {
        connection = await refreshed(server, userId);
        if (!connection) throw expired(server);
      }
      if (connection.expiresAt && connection.expiresAt.getTime() <= clock.now().getTime()) {
        throw expired(server);
      }
      return openTokens(server, connection).access_token;
    },

    /**
     * Forgets the user's tokens at once, then revokes them at the authorization server in the
     * background: an authorization server that is slow or down delays nobody.
     */
    async disconnect(server: ServerRecord, userId: string): Promise<void> {
      const connection = await repository.removeConnection(server.id, userId);
      if (connection) await revokeInBackground(server, [connection]);
    },

    /** Forgets and revokes every connection of a server whose auth no longer uses them. */
    async disconnectEveryone(server: ServerRecord): Promise<void> {
      await revokeInBackground(server, await repository.removeConnectionsOf(server.id));
    },

    /** Waits for the revocations under way (on stop, before the connections close). */
    async drain(): Promise<void> {
      await Promise.all([...revoking]);
    },
  };

  async function revokeAll(
    server: ServerRecord,
    client: OAuthClientRecord | null,
    connections: AccountConnectionRecord[],
  ): Promise<void> {
    for (const connection of connections) {
      const tokens = openTokens(server, connection);
      // Revoking the refresh token ends the grant and the access tokens of it (RFC 7009 §2.1);
      // an access token alone is revoked only when there is no refresh token.
      const revoked = client
        ? tokens.refresh_token
          ? await revoke(server, client, tokens.refresh_token, 'refresh_token')
          : await revoke(server, client, tokens.access_token, 'access_token')
        : false;
      logger.info(
        { serverId: server.id, userId: connection.userId, revoked },
        revoked
          ? 'connected account disconnected and its tokens revoked'
          : 'connected account disconnected; the authorization server did not confirm revocation',
      );
    }
  }
}
