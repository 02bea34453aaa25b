import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

/** Who may see and use a registered MCP server (docs/decisions/0021). */
export const McpAccessMode = z.enum(['everyone', 'specific', 'specific_users', 'creator_only']);
export type McpAccessMode = z.infer<typeof McpAccessMode>;

/** The ways a server's credential is sent (docs/decisions/0020). */
export const McpAuthType = z.enum(['none', 'direct', 'basic', 'env_var', 'account']);
export type McpAuthType = z.infer<typeof McpAuthType>;

/** An HTTP header name (RFC 9110 token). */
const HeaderName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/, 'Not a valid header name');

/** Headers the transport owns: a user-supplied value would break or smuggle the request. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'upgrade',
  'keep-alive',
  'te',
  'trailer',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

/** A header value: no line breaks (header injection), bounded. */
const HeaderValue = z
  .string()
  .max(8192)
  .regex(/^[^\r\n\0]*$/, 'Header values cannot contain line breaks');

/**
 * Free-form headers sent to the server on every request; encrypted at rest like credentials,
 * never returned.
 */
export const McpHeaders = z
  .record(HeaderName, HeaderValue)
  .refine((headers) => Object.keys(headers).length <= 50, 'At most 50 headers')
  .refine(
    (headers) => Object.keys(headers).every((name) => !RESERVED_HEADERS.has(name.toLowerCase())),
    'Headers cannot set transport headers (host, content-type, accept, mcp-session-id, ...)',
  );

/**
 * The spec's authConfig keys plus `type`, which names the auth type explicitly. Without `type`:
 * username or password → basic, value → direct, nothing → none. See docs/decisions/0020.
 */
export const McpAuthConfig = z
  .object({
    type: McpAuthType.optional(),
    /** direct and env_var: the header carrying the credential; default Authorization. */
    headerName: HeaderName.optional(),
    /**
     * direct: the secret; env_var: the variable's name; account: the OAuth scopes to ask for
     * (space separated; the server's advertised scopes when left out).
     */
    value: HeaderValue.optional(),
    /** Put before the value; default `Bearer ` when the header is Authorization. */
    prefix: HeaderValue.optional(),
    username: z
      .string()
      .max(512)
      .regex(/^[^:\r\n\0]*$/, 'No colons or line breaks')
      .optional(),
    password: HeaderValue.optional(),
  })
  .strict();
export type McpAuthConfig = z.infer<typeof McpAuthConfig>;

/** POST /mcp-registry (spec endpoint 2). */
export const RegisterMcpServerBody = z
  .object({
    workspaceId: z.uuid(),
    serverType: z.literal('custom').default('custom'),
    name: z.string().trim().min(1).max(200),
    /** Must be https (checked by the service, code INSECURE_SERVER_URL). */
    serverUrl: z.string().trim().min(1).max(2048),
    description: z.string().max(2000).default(''),
    headers: McpHeaders.default({}),
    accessMode: McpAccessMode.default('everyone'),
    accessibleTo: z.array(z.uuid()).max(1000).default([]),
    authConfig: McpAuthConfig.optional(),
  })
  .strict();
export type RegisterMcpServerBody = z.infer<typeof RegisterMcpServerBody>;

/** PATCH /mcp-registry/{id}: headers and authConfig replace the stored ones when present. */
export const UpdateMcpServerBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    enabled: z.boolean().optional(),
    headers: McpHeaders.optional(),
    authConfig: McpAuthConfig.optional(),
    accessMode: McpAccessMode.optional(),
    accessibleTo: z.array(z.uuid()).max(1000).optional(),
  })
  .strict();
export type UpdateMcpServerBody = z.infer<typeof UpdateMcpServerBody>;

/** MCP server record, Shape A (create response; refresh form 2). */
export const McpServerShapeA = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  description: z.string(),
  server_url: z.string(),
  server_type: z.literal('custom'),
  enabled: z.boolean(),
  access_mode: McpAccessMode,
  created_at: z.iso.datetime(),
});
export type McpServerShapeA = z.infer<typeof McpServerShapeA>;

/** MCP server record, Shape B (refresh form 1). */
export const McpServerShapeB = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  description: z.string(),
  server_url: z.string(),
  is_enabled: z.boolean(),
  access_mode: McpAccessMode,
  accessible_to: z.array(z.string()),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type McpServerShapeB = z.infer<typeof McpServerShapeB>;

/** GET /mcp-registry and GET/PATCH /mcp-registry/{id}: Shape B plus how it is reached and synced. */
export const McpServerView = McpServerShapeB.extend({
  server_type: z.literal('custom'),
  auth_type: McpAuthType,
  /** Names of the stored free-form headers; their values are never returned. */
  header_names: z.array(z.string()),
  transport: z.enum(['streamable_http', 'sse']).nullable(),
  sync_status: z.enum(['pending', 'running', 'succeeded', 'failed']),
  last_synced_at: z.iso.datetime().nullable(),
  sync_errors: z.array(z.string()),
});
export type McpServerView = z.infer<typeof McpServerView>;

/** MCP tool record (spec), plus `changedAt`: when its name, description or schema last changed. */
export const McpToolRecord = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  mcpServerId: z.string(),
  mcpServerName: z.string(),
  isEnabled: z.boolean(),
  inputSchema: z.record(z.string(), z.unknown()),
  lastDiscoveredAt: z.iso.datetime(),
  changedAt: z.iso.datetime(),
});
export type McpToolRecord = z.infer<typeof McpToolRecord>;

export const RegisterMcpServerResponse = z.object({ mcp: McpServerShapeA });
export const McpServerResponse = z.object({ mcp: McpServerView });
export const ListMcpServersResponse = z.object({ servers: z.array(McpServerView) });

/** Refresh form 1: for callers who manage the server (creator or workspace owner). */
export const RefreshResponseDetailed = z.object({
  mcp: McpServerShapeB,
  tools: z.object({
    discovered: z.number().int(),
    synced: z.number().int(),
    errors: z.array(z.object({ message: z.string(), tool: z.string().optional() })),
  }),
});
/** Refresh form 2: for the other members allowed to use the server. */
export const RefreshResponseSummary = z.object({
  mcp: McpServerShapeA,
  sync: z.object({
    discovered: z.number().int(),
    synced: z.number().int(),
    errors: z.array(z.string()),
  }),
});

export const McpServerIdParams = z.object({ id: z.uuid() });
export const McpToolIdParams = z.object({ toolId: z.uuid() });
const QueryValue = z.union([z.string(), z.array(z.string())]).optional();
/** Refresh: the workspace may come as workspace_id or workspaceId (alias) in the query. */
export const RefreshMcpServerQuery = z.object({
  workspace_id: QueryValue,
  workspaceId: QueryValue,
});
export const RefreshMcpServerBody = z.object({ workspaceId: z.uuid().optional() }).optional();
/** GET /mcp-registry/tools: workspaceId required (checked by the service: 400 without it). */
export const ListMcpToolsQuery = z.object({
  workspaceId: QueryValue,
  workspace_id: QueryValue,
  /** `true`: data becomes an object keyed by server id, each `{server: {id, name}, tools}`. */
  groupByServer: QueryValue,
});
export const ListMcpServersQuery = z.object({ workspaceId: QueryValue, workspace_id: QueryValue });
export const UpdateMcpToolBody = z.object({ isEnabled: z.boolean() }).strict();
export const UpdateMcpToolResponse = z.object({ tool: McpToolRecord });
export const ListMcpToolsResponse = z.object({
  data: z.union([
    z.array(McpToolRecord),
    z.record(
      z.string(),
      z.object({
        server: z.object({ id: z.string(), name: z.string() }),
        tools: z.array(McpToolRecord),
      }),
    ),
  ]),
  count: z.number().int(),
});

/** The web app's page the authorization servers send people back to (decision 138). */
export const MCP_ACCOUNT_CALLBACK_PATH = '/app/connected-accounts/callback';

/**
 * The caller's own connected account at an `account` server (decision 138): whether they have
 * connected, when, and until when the current access token holds (it is refreshed before then).
 */
export const McpAccountConnection = z.object({
  server_id: z.uuid(),
  connected: z.boolean(),
  connected_at: z.iso.datetime().nullable(),
  expires_at: z.iso.datetime().nullable(),
  scope: z.string().nullable(),
});
export type McpAccountConnection = z.infer<typeof McpAccountConnection>;
export const McpAccountResponse = z.object({ account: McpAccountConnection });
/** Where to send the user's browser to connect; good once, until `expires_at`. */
export const McpAccountAuthorizationResponse = z.object({
  authorization_url: z.url(),
  expires_at: z.iso.datetime(),
});
/**
 * What the authorization server sent back to the web app's callback page, passed on as it came:
 * `code` and `state` (and `iss`, RFC 9207), or `error` when the user or server refused.
 */
export const CompleteMcpAccountAuthorizationBody = z
  .object({
    state: z.string().min(1).max(200),
    code: z.string().min(1).max(4096).optional(),
    iss: z.string().max(2048).optional(),
    error: z.string().max(200).optional(),
    error_description: z.string().max(1000).optional(),
  })
  .strict();
export const CompletedMcpAccountAuthorizationResponse = z.object({
  account: McpAccountConnection,
  /** The server's workspace, for the web app to go back to the server's page. */
  workspace_id: z.uuid(),
});

/** The header that selects the workspace on refresh (forwarded by the gateway). */
export const WORKSPACE_HEADER = 'x-workspace-id';

const mcpServerErrors = {
  ...sessionErrorResponses,
  400: {
    description: 'VALIDATION_ERROR, INSECURE_SERVER_URL, SERVER_URL_NOT_ALLOWED',
    schema: ErrorBodySchema,
  },
  404: { description: 'NOT_FOUND: no such server visible to the caller', schema: ErrorBodySchema },
};

/** The REST routes of mcp-registry, and the platform's own MCP server at POST /mcp. */
export const mcpRoutes = defineRoutes([
  {
    operationId: 'register_mcp_server',
    summary: 'Register a custom MCP server (spec endpoint 2); its tools are synced asynchronously',
    method: 'POST',
    path: '/mcp-registry',
    owner: 'mcp-registry',
    subject: 'mcp.api.register_mcp_server.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: RegisterMcpServerBody },
    responses: {
      201: { description: 'Registered (Shape A)', schema: RegisterMcpServerResponse },
      ...mcpServerErrors,
    },
  },
  {
    operationId: 'list_mcp_servers',
    summary: 'The MCP servers of a workspace the caller may see (access modes applied)',
    method: 'GET',
    path: '/mcp-registry',
    owner: 'mcp-registry',
    subject: 'mcp.api.list_mcp_servers.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: ListMcpServersQuery },
    responses: {
      200: { description: 'The servers', schema: ListMcpServersResponse },
      ...mcpServerErrors,
    },
  },
  {
    operationId: 'list_mcp_tools',
    summary: 'The tools of the servers the caller may use (spec endpoint 4); workspaceId required',
    method: 'GET',
    path: '/mcp-registry/tools',
    owner: 'mcp-registry',
    subject: 'mcp.api.list_mcp_tools.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: ListMcpToolsQuery },
    responses: {
      200: { description: 'The tools', schema: ListMcpToolsResponse },
      ...sessionErrorResponses,
      400: { description: 'WORKSPACE_ID_REQUIRED or VALIDATION_ERROR', schema: ErrorBodySchema },
    },
  },
  {
    operationId: 'update_mcp_tool',
    summary: 'Enable or disable one tool (server managers only)',
    method: 'PATCH',
    path: '/mcp-registry/tools/:toolId',
    owner: 'mcp-registry',
    subject: 'mcp.api.update_mcp_tool.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: McpToolIdParams, body: UpdateMcpToolBody },
    responses: {
      200: { description: 'The tool', schema: UpdateMcpToolResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_mcp_server',
    summary: 'One MCP server the caller may see',
    method: 'GET',
    path: '/mcp-registry/:id',
    owner: 'mcp-registry',
    subject: 'mcp.api.get_mcp_server.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: McpServerIdParams },
    responses: {
      200: { description: 'The server', schema: McpServerResponse },
      ...mcpServerErrors,
    },
  },
  {
    operationId: 'update_mcp_server',
    summary: 'Change an MCP server (its creator or a workspace owner); a new URL or auth re-syncs',
    method: 'PATCH',
    path: '/mcp-registry/:id',
    owner: 'mcp-registry',
    subject: 'mcp.api.update_mcp_server.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: McpServerIdParams, body: UpdateMcpServerBody },
    responses: {
      200: { description: 'The server', schema: McpServerResponse },
      ...mcpServerErrors,
    },
  },
  {
    operationId: 'delete_mcp_server',
    summary: 'Remove an MCP server and its tools (its creator or a workspace owner)',
    method: 'DELETE',
    path: '/mcp-registry/:id',
    owner: 'mcp-registry',
    subject: 'mcp.api.delete_mcp_server.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: McpServerIdParams },
    responses: { 204: { description: 'Removed' }, ...mcpServerErrors },
  },
  {
    operationId: 'refresh_mcp_server',
    summary: 'Re-discover and sync the tools of a custom MCP server (spec endpoint 3)',
    method: 'POST',
    path: '/mcp-registry/:id/refresh',
    owner: 'mcp-registry',
    subject: 'mcp.api.refresh_mcp_server.v1',
    auth: 'session',
    bodyKind: 'json',
    request: {
      params: McpServerIdParams,
      query: RefreshMcpServerQuery,
      body: RefreshMcpServerBody,
    },
    forwardHeaders: [WORKSPACE_HEADER],
    responses: {
      200: {
        description: 'Form 1 (managers: Shape B + tools) or form 2 (members: Shape A + sync)',
        schema: z.union([RefreshResponseDetailed, RefreshResponseSummary]),
      },
      ...sessionErrorResponses,
      400: {
        description: 'MCP_NOT_REFRESHABLE: not a custom HTTP server',
        schema: ErrorBodySchema,
      },
      404: { description: 'NOT_FOUND: no such server in the workspace', schema: ErrorBodySchema },
      409: { description: 'MCP_SYNC_IN_PROGRESS', schema: ErrorBodySchema },
      502: { description: 'MCP_SYNC_FAILED: details.errors says why', schema: ErrorBodySchema },
    },
  },
  {
    operationId: 'get_mcp_account',
    summary: "The caller's own connected account at an account-auth MCP server",
    method: 'GET',
    path: '/mcp-registry/:id/account',
    owner: 'mcp-registry',
    subject: 'mcp.api.get_mcp_account.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: McpServerIdParams },
    responses: {
      200: { description: 'Connected or not', schema: McpAccountResponse },
      ...mcpServerErrors,
    },
  },
  {
    operationId: 'start_mcp_account_authorization',
    summary:
      'Start connecting your own account to an account-auth MCP server by OAuth 2.1 (authorization code with PKCE)',
    method: 'POST',
    path: '/mcp-registry/:id/account/authorizations',
    owner: 'mcp-registry',
    subject: 'mcp.api.start_mcp_account_authorization.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    // Discovery and registration: up to four requests to servers outside, 10 s each at most.
    timeoutMs: 45_000,
    request: { params: McpServerIdParams },
    responses: {
      201: {
        description: "The authorization server's URL to open in the browser",
        schema: McpAccountAuthorizationResponse,
      },
      ...sessionErrorResponses,
      400: {
        description: 'MCP_ACCOUNT_NOT_USED: the server does not use the account auth type',
        schema: ErrorBodySchema,
      },
      404: {
        description: 'NOT_FOUND: no such server visible to the caller',
        schema: ErrorBodySchema,
      },
      502: {
        description:
          'MCP_AUTHORIZATION_FAILED: the authorization server could not be discovered or registered with',
        schema: ErrorBodySchema,
      },
    },
  },
  {
    operationId: 'complete_mcp_account_authorization',
    summary:
      'Finish connecting: the code the authorization server sent to the callback page is exchanged for tokens',
    method: 'POST',
    path: '/mcp-registry/oauth/callback',
    owner: 'mcp-registry',
    subject: 'mcp.api.complete_mcp_account_authorization.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    // The code's exchange: one request to the authorization server, 10 s at most.
    timeoutMs: 15_000,
    request: { body: CompleteMcpAccountAuthorizationBody },
    responses: {
      200: { description: 'Connected', schema: CompletedMcpAccountAuthorizationResponse },
      ...sessionErrorResponses,
      400: {
        description:
          'VALIDATION_ERROR, or MCP_AUTHORIZATION_DENIED: the authorization server sent an error',
        schema: ErrorBodySchema,
      },
      404: {
        description: 'NOT_FOUND: no authorization of yours with this state (expired or used)',
        schema: ErrorBodySchema,
      },
      502: {
        description: 'MCP_AUTHORIZATION_FAILED: the code could not be exchanged for tokens',
        schema: ErrorBodySchema,
      },
    },
  },
  {
    operationId: 'disconnect_mcp_account',
    summary:
      'Disconnect your own account from an MCP server: its tokens are revoked at the authorization server and forgotten',
    method: 'DELETE',
    path: '/mcp-registry/:id/account',
    owner: 'mcp-registry',
    subject: 'mcp.api.disconnect_mcp_account.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: McpServerIdParams },
    responses: { 204: { description: 'Disconnected' }, ...mcpServerErrors },
  },
  {
    operationId: 'mcp_endpoint',
    summary: "The platform's own MCP server (Streamable HTTP, stateless); Bearer sk_ workspace key",
    method: 'POST',
    path: '/mcp',
    owner: 'mcp-registry',
    subject: 'mcp.api.mcp_endpoint.v1',
    auth: 'api_key',
    bodyKind: 'raw',
    bodyLimitBytes: 1024 * 1024,
    responses: {
      200: {
        description:
          'JSON-RPC response: one JSON message, or a text/event-stream of them for a client that accepts both (Streamable HTTP)',
        contentType: 'application/json',
        alsoAs: [{ contentType: 'text/event-stream' }],
      },
      202: { description: 'Notification accepted' },
      401: { description: 'UNAUTHORIZED', schema: ErrorBodySchema },
    },
  },
  {
    operationId: 'mcp_endpoint_stream',
    summary: 'GET /mcp: no server-initiated stream in stateless mode (405)',
    method: 'GET',
    path: '/mcp',
    owner: 'mcp-registry',
    subject: 'mcp.api.mcp_endpoint_stream.v1',
    auth: 'api_key',
    bodyKind: 'raw',
    responses: { 405: { description: 'METHOD_NOT_ALLOWED', schema: ErrorBodySchema } },
  },
  {
    operationId: 'mcp_endpoint_session',
    summary: 'DELETE /mcp: no sessions in stateless mode (405)',
    method: 'DELETE',
    path: '/mcp',
    owner: 'mcp-registry',
    subject: 'mcp.api.mcp_endpoint_session.v1',
    auth: 'api_key',
    bodyKind: 'raw',
    responses: { 405: { description: 'METHOD_NOT_ALLOWED', schema: ErrorBodySchema } },
  },
] as const);
