import { openSecret, sealSecret, type CredentialKeyring } from '@wap/auth';
import { AppError, type McpAuthConfig, type McpAuthType } from '@wap/contracts';

/** How a server's credential is kept: names in clear, secrets sealed (docs/decisions/0020). */
export interface StoredAuth {
  authType: McpAuthType;
  authHeaderName: string | null;
  authPrefix: string | null;
  authReference: string | null;
  sealedSecret: string | null;
}

export interface StoredHeaders {
  headerNames: string[];
  sealedHeaders: string | null;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const DEFAULT_HEADER = 'Authorization';

function invalid(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, {
    details: [{ path: ['authConfig'], message }],
  });
}

/** The auth type of a config: explicit `type`, else inferred from the keys that are present. */
export function authTypeOf(config: McpAuthConfig | undefined): McpAuthType {
  if (!config) return 'none';
  if (config.type) return config.type;
  if (config.username !== undefined || config.password !== undefined) return 'basic';
  if (config.value !== undefined) return 'direct';
  return 'none';
}

/** What a sealed value is bound to: its workspace, its server and its field. */
export function secretContext(workspaceId: string, serverId: string, field: string): string {
  return `mcp-registry/${workspaceId}/${serverId}/${field}`;
}

/**
 * Validates an authConfig and seals its secret for one server. Fails with VALIDATION_ERROR
 * (never echoing a secret) when a type lacks its keys or env_var names a variable the operator
 * did not allow.
 */
export function sealAuth(
  config: McpAuthConfig | undefined,
  deps: { keyring: CredentialKeyring; envAllowlist: ReadonlySet<string> },
  ids: { workspaceId: string; serverId: string },
): StoredAuth {
  const type = authTypeOf(config);
  const context = secretContext(ids.workspaceId, ids.serverId, 'secret');
  const headerName = config?.headerName ?? DEFAULT_HEADER;
  const prefix = config?.prefix ?? null;
  switch (type) {
    case 'none':
      return {
        authType: 'none',
        authHeaderName: null,
        authPrefix: null,
        authReference: null,
        sealedSecret: null,
      };
    case 'direct': {
      if (!config?.value) throw invalid('authConfig.value is required for direct auth');
      return {
        authType: type,
        authHeaderName: headerName,
        authPrefix: prefix,
        authReference: null,
        sealedSecret: sealSecret(deps.keyring, config.value, context),
      };
    }
    case 'basic': {
      if (config?.username === undefined || config.password === undefined) {
        throw invalid('authConfig.username and authConfig.password are required for basic auth');
      }
      return {
        authType: type,
        authHeaderName: 'Authorization',
        authPrefix: null,
        authReference: null,
        sealedSecret: sealSecret(
          deps.keyring,
          JSON.stringify({ username: config.username, password: config.password }),
          context,
        ),
      };
    }
    case 'env_var': {
      const name = config?.value;
      if (!name || !ENV_NAME.test(name)) {
        throw invalid('authConfig.value must name an environment variable for env_var auth');
      }
      if (!deps.envAllowlist.has(name)) {
        throw invalid(`Environment variable ${name} is not on the operator's allow-list`);
      }
      return {
        authType: type,
        authHeaderName: headerName,
        authPrefix: prefix,
        authReference: name,
        sealedSecret: null,
      };
    }
    case 'account': {
      // Each person connects their own account (decision 138); `value` only narrows the scopes.
      return {
        authType: type,
        authHeaderName: headerName,
        authPrefix: prefix,
        authReference: config?.value?.trim() || null,
        sealedSecret: null,
      };
    }
  }
}

export function sealHeaders(
  headers: Record<string, string>,
  keyring: CredentialKeyring,
  ids: { workspaceId: string; serverId: string },
): StoredHeaders {
  const names = Object.keys(headers);
  if (names.length === 0) return { headerNames: [], sealedHeaders: null };
  return {
    headerNames: names,
    sealedHeaders: sealSecret(
      keyring,
      JSON.stringify(headers),
      secretContext(ids.workspaceId, ids.serverId, 'headers'),
    ),
  };
}

/** A failure to build a server's credentials at connect time; the message names no secret. */
export class CredentialUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialUnavailableError';
  }
}

/** `Bearer` + value, with the space a prefix without one needs. */
export function withPrefix(prefix: string | null, headerName: string, value: string): string {
  const effective = prefix ?? (headerName.toLowerCase() === 'authorization' ? 'Bearer' : '');
  if (!effective) return value;
  return /\s$/.test(effective) ? `${effective}${value}` : `${effective} ${value}`;
}

export interface ConnectionSecrets {
  workspaceId: string;
  id: string;
  auth: StoredAuth;
  sealedHeaders: string | null;
}

/**
 * The headers to send to a server, decrypted (or read from the environment, or asked of the
 * calling user's connected account) now, at connect time; they live only in memory for the
 * connection.
 */
export async function connectionHeaders(
  server: ConnectionSecrets,
  deps: {
    keyring: CredentialKeyring;
    envAllowlist: ReadonlySet<string>;
    environment: Readonly<Record<string, string | undefined>>;
    /** The calling user's access token, for the account auth type. */
    accountToken?: () => Promise<string>;
  },
): Promise<Record<string, string>> {
  const headers: Record<string, string> = server.sealedHeaders
    ? (JSON.parse(
        openSecret(
          deps.keyring,
          server.sealedHeaders,
          secretContext(server.workspaceId, server.id, 'headers'),
        ),
      ) as Record<string, string>)
    : {};
  const { auth } = server;
  const headerName = auth.authHeaderName ?? DEFAULT_HEADER;
  const context = secretContext(server.workspaceId, server.id, 'secret');
  switch (auth.authType) {
    case 'none':
      return headers;
    case 'direct': {
      const value = openSecret(deps.keyring, auth.sealedSecret ?? '', context);
      return { ...headers, [headerName]: withPrefix(auth.authPrefix, headerName, value) };
    }
    case 'basic': {
      const { username, password } = JSON.parse(
        openSecret(deps.keyring, auth.sealedSecret ?? '', context),
      ) as { username: string; password: string };
      const encoded = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
      return { ...headers, Authorization: `Basic ${encoded}` };
    }
    case 'env_var': {
      const name = auth.authReference ?? '';
      // Checked again at connect time: the operator may have removed it from the list since.
      const value = deps.envAllowlist.has(name) ? deps.environment[name] : undefined;
      if (!value)
        throw new CredentialUnavailableError(`Environment variable ${name} is not available`);
      return { ...headers, [headerName]: withPrefix(auth.authPrefix, headerName, value) };
    }
    case 'account': {
      if (!deps.accountToken) {
        throw new CredentialUnavailableError(
          "The server uses each person's own connected account, and no person is calling",
        );
      }
      const token = await deps.accountToken();
      return { ...headers, [headerName]: withPrefix(auth.authPrefix, headerName, token) };
    }
  }
}
