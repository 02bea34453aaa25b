import type { Logger } from 'pino';
import type { z } from 'zod';
import type { CredentialKeyring } from '@wap/auth';
import {
  AppError,
  McpServerIdParams,
  McpToolIdParams,
  RegisterMcpServerBody,
  UpdateMcpServerBody,
  UpdateMcpToolBody,
  type McpToolRecord,
  type mcpRoutes,
  type OperationsOf,
  type WorkspaceRole,
  BUS_APIS,
} from '@wap/contracts';
import { EgressBlockedError, assertPublicUrl, type EgressAllowlist } from '@wap/egress';
import { type Bus } from '@wap/platform';
import { actorOf, callApi, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { AccountOAuth } from '../accounts/oauth';
import type { ToolSync } from '../sync/tool-sync';
import type { ConnectionPool } from '../tools/connection-pool';
import { canManage, canUse } from './access';
import { sealAuth, sealHeaders } from './credentials';
import type { ServerRecord, ServerRepository } from './repository';
import { serverView, shapeA, shapeB, toolView } from './views';
import { explicitWorkspace, queryWorkspace } from './workspace-selection';

export interface ServerHandlersDeps {
  repository: ServerRepository;
  directory: DirectoryClient;
  toolSync: ToolSync;
  pool: ConnectionPool;
  accounts: Pick<AccountOAuth, 'disconnectEveryone'>;
  bus: Bus;
  keyring: CredentialKeyring;
  envAllowlist: ReadonlySet<string>;
  egressAllowlist: EgressAllowlist;
  logger: Logger;
  /** Called after a server or tool changed (the call path caches them briefly). */
  onChanged: () => void;
}

const SERVER_NOT_FOUND = 'MCP server not found';

/** Finds a server the caller may use, else 404 (a hidden server and a missing one look the same). */
export function createServerLookup(deps: {
  repository: ServerRepository;
  directory: DirectoryClient;
}) {
  return async function visibleServer(
    serverId: string,
    userId: string,
  ): Promise<{ server: ServerRecord; role: WorkspaceRole }> {
    const server = await deps.repository.find(serverId);
    if (!server) throw new AppError('NOT_FOUND', SERVER_NOT_FOUND);
    const role = await deps.directory.confirmedRoleOf(server.workspaceId, userId);
    if (!role || !canUse(server, userId, role)) throw new AppError('NOT_FOUND', SERVER_NOT_FOUND);
    return { server, role };
  };
}

/** The JSON routes of the registry (the raw /mcp routes are the endpoint's). */
export type McpRestOperation = Exclude<
  OperationsOf<typeof mcpRoutes, 'mcp-registry'>,
  'mcp_endpoint' | 'mcp_endpoint_stream' | 'mcp_endpoint_session' | McpAccountOperation
>;

/** The routes of a person's own connected account (accounts/handlers.ts). */
export type McpAccountOperation =
  | 'get_mcp_account'
  | 'start_mcp_account_authorization'
  | 'complete_mcp_account_authorization'
  | 'disconnect_mcp_account';

function parse<Schema extends z.ZodType>(schema: Schema, value: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AppError('VALIDATION_ERROR', 'Invalid request', { details: parsed.error.issues });
  }
  return parsed.data;
}

/** The route handlers of the registry's REST API. */
/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createServerHandlers(
  deps: ServerHandlersDeps,
): Record<McpRestOperation, RouteHandler> {
  const { repository, directory, toolSync } = deps;
  const visibleServer = createServerLookup(deps);

  async function managedServer(serverId: string, userId: string) {
    const found = await visibleServer(serverId, userId);
    if (!canManage(found.server, userId, found.role)) {
      throw new AppError(
        'FORBIDDEN',
        'Only the creator or a workspace owner can change this server',
      );
    }
    return found;
  }

  async function checkServerUrl(serverUrl: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(serverUrl);
    } catch {
      throw new AppError('VALIDATION_ERROR', 'serverUrl must be a valid URL', {
        details: [{ path: ['serverUrl'], message: 'Invalid URL' }],
      });
    }
    if (url.protocol !== 'https:') {
      throw new AppError('INSECURE_SERVER_URL', 'serverUrl must use https');
    }
    if (url.username || url.password) {
      throw new AppError('VALIDATION_ERROR', 'serverUrl cannot carry credentials; use authConfig', {
        details: [{ path: ['serverUrl'], message: 'Credentials in the URL' }],
      });
    }
    try {
      await assertPublicUrl(url, { allowlist: deps.egressAllowlist });
    } catch (error) {
      if (error instanceof EgressBlockedError) {
        throw new AppError('SERVER_URL_NOT_ALLOWED', 'serverUrl is not a public address');
      }
      throw new AppError('VALIDATION_ERROR', 'serverUrl host does not resolve', {
        details: [{ path: ['serverUrl'], message: 'Host not found' }],
      });
    }
    return url.toString();
  }

  function checkAccessibleTo(workspaceId: string, accessibleTo: string[]): void {
    const members = directory.workspace(workspaceId)?.members ?? {};
    const outsiders = accessibleTo.filter((userId) => !Object.hasOwn(members, userId));
    if (outsiders.length > 0) {
      throw new AppError(
        'VALIDATION_ERROR',
        'accessibleTo lists users who are not workspace members',
        {
          details: [{ path: ['accessibleTo'], message: 'Not members', userIds: outsiders }],
        },
      );
    }
  }

  async function toolsVisibleTo(workspaceId: string, userId: string, role: WorkspaceRole) {
    const servers = (await repository.listByWorkspace(workspaceId)).filter((server) =>
      canUse(server, userId, role),
    );
    const names = new Map(servers.map((server) => [server.id, server.name]));
    const tools = await repository.toolsOf(servers.map((server) => server.id));
    return { servers, tools: tools.map((tool) => toolView(tool, names.get(tool.serverId) ?? '')) };
  }

  return {
    async register_mcp_server(request) {
      const actor = actorOf(request);
      const body = parse(RegisterMcpServerBody, request.body);
      await directory.requireMember(body.workspaceId, actor.userId);
      const serverUrl = await checkServerUrl(body.serverUrl);
      checkAccessibleTo(body.workspaceId, body.accessibleTo);
      const serverId = repository.newId();
      const ids = { workspaceId: body.workspaceId, serverId };
      const server = await repository.insert(
        serverId,
        {
          workspaceId: body.workspaceId,
          name: body.name,
          description: body.description,
          serverUrl,
          accessMode: body.accessMode,
          accessibleTo: body.accessibleTo,
          createdBy: actor.userId,
        },
        {
          auth: sealAuth(body.authConfig, deps, ids),
          headers: sealHeaders(body.headers, deps.keyring, ids),
        },
      );
      toolSync.runInBackground(server, actor.userId);
      return { status: 201, body: { mcp: shapeA(server) } };
    },

    async list_mcp_servers(request) {
      const actor = actorOf(request);
      const workspaceId = queryWorkspace(request);
      if (!workspaceId) throw new AppError('WORKSPACE_ID_REQUIRED', 'workspaceId is required');
      const role = await directory.requireMember(workspaceId, actor.userId);
      const servers = (await repository.listByWorkspace(workspaceId)).filter((server) =>
        canUse(server, actor.userId, role),
      );
      return { status: 200, body: { servers: servers.map(serverView) } };
    },

    async list_mcp_tools(request) {
      const actor = actorOf(request);
      const workspaceId = queryWorkspace(request);
      if (!workspaceId) throw new AppError('WORKSPACE_ID_REQUIRED', 'workspaceId is required');
      const role = await directory.requireMember(workspaceId, actor.userId);
      const { servers, tools } = await toolsVisibleTo(workspaceId, actor.userId, role);
      const group = request.query['groupByServer'];
      if (group === 'true' || group === '1') {
        const data: Record<
          string,
          { server: { id: string; name: string }; tools: McpToolRecord[] }
        > = {};
        for (const server of servers) {
          data[server.id] = { server: { id: server.id, name: server.name }, tools: [] };
        }
        for (const tool of tools) data[tool.mcpServerId]?.tools.push(tool);
        return { status: 200, body: { data, count: tools.length } };
      }
      return { status: 200, body: { data: tools, count: tools.length } };
    },

    async update_mcp_tool(request) {
      const actor = actorOf(request);
      const { toolId } = parse(McpToolIdParams, request.params);
      const body = parse(UpdateMcpToolBody, request.body);
      const tool = await repository.findTool(toolId);
      if (!tool) throw new AppError('NOT_FOUND', 'Tool not found');
      const { server } = await managedServer(tool.serverId, actor.userId).catch(
        (error: unknown) => {
          if (error instanceof AppError && error.code === 'NOT_FOUND') {
            throw new AppError('NOT_FOUND', 'Tool not found');
          }
          throw error;
        },
      );
      const updated = await repository.setToolEnabled(toolId, body.isEnabled);
      if (!updated) throw new AppError('NOT_FOUND', 'Tool not found');
      deps.onChanged();
      return { status: 200, body: { tool: toolView(updated, server.name) } };
    },

    async get_mcp_server(request) {
      const actor = actorOf(request);
      const { id } = parse(McpServerIdParams, request.params);
      const { server } = await visibleServer(id, actor.userId);
      return { status: 200, body: { mcp: serverView(server) } };
    },

    async update_mcp_server(request) {
      const actor = actorOf(request);
      const { id } = parse(McpServerIdParams, request.params);
      const body = parse(UpdateMcpServerBody, request.body);
      const { server } = await managedServer(id, actor.userId);
      const ids = { workspaceId: server.workspaceId, serverId: server.id };
      if (body.accessibleTo) checkAccessibleTo(server.workspaceId, body.accessibleTo);
      const updated = await repository.update(id, {
        name: body.name,
        description: body.description,
        enabled: body.enabled,
        accessMode: body.accessMode,
        accessibleTo: body.accessibleTo,
        auth: body.authConfig ? sealAuth(body.authConfig, deps, ids) : undefined,
        headers: body.headers ? sealHeaders(body.headers, deps.keyring, ids) : undefined,
      });
      if (!updated) throw new AppError('NOT_FOUND', SERVER_NOT_FOUND);
      deps.onChanged();
      deps.pool.drop(id);
      // People's own accounts are of no use to a server that no longer asks for them.
      if (server.auth.authType === 'account' && updated.auth.authType !== 'account') {
        await deps.accounts.disconnectEveryone(server);
      }
      // New credentials may unlock tools the old ones could not list.
      if (body.authConfig || body.headers) toolSync.runInBackground(updated, actor.userId);
      return { status: 200, body: { mcp: serverView(updated) } };
    },

    async delete_mcp_server(request) {
      const actor = actorOf(request);
      const { id } = parse(McpServerIdParams, request.params);
      const { server } = await managedServer(id, actor.userId);
      deps.pool.drop(id);
      await deps.accounts.disconnectEveryone(server);
      await repository.remove(id);
      deps.onChanged();
      return { status: 204 };
    },

    /**
     * Spec endpoint 3. Form 1 (Shape B + `tools`) answers callers who manage the server, form 2
     * (Shape A + `sync`) the other members allowed to use it: Shape B shows who else has access
     * (docs/decisions/0022).
     */
    async refresh_mcp_server(request) {
      const actor = actorOf(request);
      const { id } = parse(McpServerIdParams, request.params);
      const workspaceId =
        explicitWorkspace(request) ??
        (
          await callApi(
            deps.bus,
            BUS_APIS.firstWorkspace,
            { userId: actor.userId },
            { timeoutMs: 5000 },
          )
        ).workspaceId;
      const { server, role } = await visibleServer(id, actor.userId);
      if (server.workspaceId !== workspaceId) throw new AppError('NOT_FOUND', SERVER_NOT_FOUND);
      if (server.serverType !== 'custom' || !/^https?:/.test(server.serverUrl)) {
        throw new AppError(
          'MCP_NOT_REFRESHABLE',
          'Only custom (HTTP) MCP servers can be refreshed',
        );
      }
      const result = await toolSync.run(server, actor.userId);
      deps.onChanged();
      if (result.needsAccount) {
        // The caller's own step to take, not a failure of the server: a 4xx with what to do.
        throw new AppError(
          'MCP_ACCOUNT_NOT_CONNECTED',
          result.errors[0]?.message ?? 'Connect your account first',
        );
      }
      if (result.failed) {
        throw new AppError('MCP_SYNC_FAILED', 'Tool sync failed', {
          details: { errors: result.errors.map((issue) => issue.message) },
        });
      }
      const synced = (await repository.find(id)) ?? server;
      if (canManage(synced, actor.userId, role)) {
        return {
          status: 200,
          body: {
            mcp: shapeB(synced),
            tools: { discovered: result.discovered, synced: result.synced, errors: result.errors },
          },
        };
      }
      return {
        status: 200,
        body: {
          mcp: shapeA(synced),
          sync: {
            discovered: result.discovered,
            synced: result.synced,
            errors: result.errors.map((issue) =>
              issue.tool ? `${issue.tool}: ${issue.message}` : issue.message,
            ),
          },
        },
      };
    },
  };
}
