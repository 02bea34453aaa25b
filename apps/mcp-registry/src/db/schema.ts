import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Everything mcp-registry persists lives in its own PostgreSQL schema; no other service reads it. */
export const mcpRegistrySchema = pgSchema('mcp_registry');

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Registered MCP servers. Secrets never sit in clear text: `sealed_secret` (the auth credential)
 * and `sealed_headers` (the free-form headers, as one JSON object) are envelope-encrypted by
 * @wap/auth and bound to the server id and the field. Names that are not secret (the auth
 * header, the env variable, the account id, the header names) are kept readable.
 */
export const servers = mcpRegistrySchema.table(
  'servers',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    serverUrl: text('server_url').notNull(),
    serverType: text('server_type').notNull(),
    enabled: boolean('enabled').notNull(),
    accessMode: text('access_mode').notNull(),
    accessibleTo: jsonb('accessible_to').$type<string[]>().notNull(),
    authType: text('auth_type').notNull(),
    authHeaderName: text('auth_header_name'),
    authPrefix: text('auth_prefix'),
    /** env_var: the variable; account: the OAuth scopes to ask for (space separated), if set. */
    authReference: text('auth_reference'),
    sealedSecret: text('sealed_secret'),
    headerNames: jsonb('header_names').$type<string[]>().notNull(),
    sealedHeaders: text('sealed_headers'),
    /** The transport that worked last (streamable_http, or sse after a fallback). */
    transport: text('transport'),
    syncStatus: text('sync_status').notNull(),
    syncErrors: jsonb('sync_errors').$type<string[]>().notNull(),
    lastSyncedAt: timestamptz('last_synced_at'),
    createdBy: uuid('created_by').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('servers_workspace_id_idx').on(table.workspaceId),
    check(
      'servers_access_mode_check',
      sql`${table.accessMode} in ('everyone', 'specific', 'specific_users', 'creator_only')`,
    ),
    check(
      'servers_auth_type_check',
      sql`${table.authType} in ('none', 'direct', 'basic', 'env_var', 'account')`,
    ),
  ],
);

/**
 * Tools discovered on a server, one row per tool name. `hash` covers name, description and
 * input schema: a sync that finds another hash updates the row and `changed_at`. `enabled` is the
 * user's choice and survives syncs.
 */
export const tools = mcpRegistrySchema.table(
  'tools',
  {
    id: uuid('id').primaryKey(),
    serverId: uuid('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    workspaceId: uuid('workspace_id').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull(),
    inputSchema: jsonb('input_schema').$type<Record<string, unknown>>().notNull(),
    hash: text('hash').notNull(),
    enabled: boolean('enabled').notNull(),
    lastDiscoveredAt: timestamptz('last_discovered_at').notNull(),
    changedAt: timestamptz('changed_at').notNull(),
  },
  (table) => [
    uniqueIndex('tools_server_id_name_idx').on(table.serverId, table.name),
    index('tools_workspace_id_idx').on(table.workspaceId),
  ],
);

/**
 * The OAuth client the platform registered (or was given) at a server's authorization server,
 * with that server's metadata as discovered when the last authorization started: refreshing and
 * revoking need its endpoints, not a new discovery. One per server; `sealed_client_secret` is
 * bound to the server like its other credentials.
 */
export const oauthClients = mcpRegistrySchema.table('oauth_clients', {
  serverId: uuid('server_id')
    .primaryKey()
    .references(() => servers.id, { onDelete: 'cascade' }),
  issuer: text('issuer').notNull(),
  /** RFC 8414 authorization server metadata, as discovered. */
  metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
  /** The RFC 8707 resource the tokens are asked for (the server's canonical URL). */
  resource: text('resource').notNull(),
  clientId: text('client_id').notNull(),
  sealedClientSecret: text('sealed_client_secret'),
  tokenEndpointAuthMethod: text('token_endpoint_auth_method'),
  redirectUri: text('redirect_uri').notNull(),
  registeredAt: timestamptz('registered_at').notNull(),
});

/**
 * Authorizations a user started and has not finished: `state` is the value sent to the
 * authorization server and back, good once, for one user, until `expires_at`.
 */
export const pendingAuthorizations = mcpRegistrySchema.table(
  'pending_authorizations',
  {
    state: text('state').primaryKey(),
    serverId: uuid('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    sealedCodeVerifier: text('sealed_code_verifier').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (table) => [index('pending_authorizations_expires_at_idx').on(table.expiresAt)],
);

/**
 * A user's connected account at a server: their tokens, sealed and bound to the server and the
 * user, so a row copied to another user cannot be opened for them.
 */
export const accountConnections = mcpRegistrySchema.table(
  'account_connections',
  {
    serverId: uuid('server_id')
      .notNull()
      .references(() => servers.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    /** `{access_token, refresh_token?, token_type}` as one sealed JSON object. */
    sealedTokens: text('sealed_tokens').notNull(),
    scope: text('scope'),
    /** When the access token was issued and when it expires (null: the server gave no lifetime). */
    issuedAt: timestamptz('issued_at').notNull(),
    expiresAt: timestamptz('expires_at'),
    connectedAt: timestamptz('connected_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.serverId, table.userId] })],
);
