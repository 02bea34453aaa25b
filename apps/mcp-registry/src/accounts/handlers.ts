import type { Logger } from 'pino';
import {
  AppError,
  CompleteMcpAccountAuthorizationBody,
  McpServerIdParams,
  type McpAccountConnection,
} from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { ServerRecord } from '../servers/repository';
import type { McpAccountOperation } from '../servers/handlers';
import type { ToolSync } from '../sync/tool-sync';
import type { ConnectionPool } from '../tools/connection-pool';
import type { AccountOAuth } from './oauth';
import type { AccountConnectionRecord } from './repository';

function accountView(
  serverId: string,
  connection: AccountConnectionRecord | null,
): McpAccountConnection {
  return {
    server_id: serverId,
    connected: connection !== null,
    connected_at: connection?.connectedAt.toISOString() ?? null,
    expires_at: connection?.expiresAt?.toISOString() ?? null,
    scope: connection?.scope ?? null,
  };
}

/** OAuth error codes are short tokens (RFC 6749 §5.2); anything else is not repeated back. */
function safeOAuthCode(value: string): string {
  return /^[\w.-]{1,64}$/.test(value) ? value : 'an error';
}

/**
 * A person's own connected account at a server of the account auth type: connect (start and
 * complete an OAuth authorization), see it, disconnect. Anyone who may use the server may connect
 * their own account; nobody sees or ends another person's.
 */
export function createAccountHandlers(deps: {
  accounts: AccountOAuth;
  visibleServer: (serverId: string, userId: string) => Promise<{ server: ServerRecord }>;
  toolSync: ToolSync;
  pool: ConnectionPool;
  logger: Logger;
}): Record<McpAccountOperation, RouteHandler> {
  const { accounts } = deps;

  return {
    async get_mcp_account(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(McpServerIdParams, request.params);
      const { server } = await deps.visibleServer(id, actor.userId);
      const connection = await accounts.connection(server, actor.userId);
      return { status: 200, body: { account: accountView(server.id, connection) } };
    },

    async start_mcp_account_authorization(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(McpServerIdParams, request.params);
      const { server } = await deps.visibleServer(id, actor.userId);
      const started = await accounts.start(server, actor.userId);
      return {
        status: 201,
        body: {
          authorization_url: started.authorizationUrl,
          expires_at: started.expiresAt.toISOString(),
        },
      };
    },

    async complete_mcp_account_authorization(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CompleteMcpAccountAuthorizationBody, request.body);
      // Taken out first, whatever follows: a state is good for one answer only.
      const pending = await accounts.takePending(body.state, actor.userId);
      if (!pending) {
        throw new AppError(
          'NOT_FOUND',
          'No connection of yours is waiting for this answer: it expired or was used; connect again',
        );
      }
      const { server } = await deps.visibleServer(pending.serverId, actor.userId);
      if (body.error || !body.code) {
        throw new AppError(
          'MCP_AUTHORIZATION_DENIED',
          `The authorization server of ${server.name} did not authorize the connection (${safeOAuthCode(body.error ?? 'no code')})`,
        );
      }
      const connection = await accounts.complete(server, actor.userId, {
        code: body.code,
        iss: body.iss,
        sealedCodeVerifier: pending.sealedCodeVerifier,
      });
      // A session opened with the old tokens, or none, is not reused.
      deps.pool.drop(server.id, actor.userId);
      // The tools may be seen now: the first person to connect syncs them.
      if (server.syncStatus !== 'succeeded') deps.toolSync.runInBackground(server, actor.userId);
      return {
        status: 200,
        body: { account: accountView(server.id, connection), workspace_id: server.workspaceId },
      };
    },

    async disconnect_mcp_account(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(McpServerIdParams, request.params);
      const { server } = await deps.visibleServer(id, actor.userId);
      deps.pool.drop(server.id, actor.userId);
      await accounts.disconnect(server, actor.userId);
      return { status: 204 };
    },
  };
}
