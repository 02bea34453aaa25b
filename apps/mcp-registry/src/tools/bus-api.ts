import type { z } from 'zod';
import {
  AppError,
  type CallToolReply,
  type CallToolRequest,
  type CancelToolCall,
  type ListToolsReply,
  type ListToolsRequest,
} from '@wap/contracts';
import { metrics, runInSpan } from '@wap/observability';
import type { Clock } from '@wap/platform';
import type { DirectoryClient } from '@wap/workspace-directory';
import { canUse } from '../servers/access';
import type { ServerRecord, ServerRepository, ToolRecord } from '../servers/repository';
import { describeFailure } from '../sync/connections';
import { httpStatusOf } from '../sync/connector';
import type { ConnectionPool } from './connection-pool';

type ListTools = z.infer<typeof ListToolsRequest>;
type CallTool = z.infer<typeof CallToolRequest>;

/**
 * The registry's bus API for the assistant and mcp_tool steps: list the tools a user may use,
 * call one as that user. Access modes apply exactly as on the REST routes.
 */
/**
 * How long a resolved tool and its server are reused by calls. Changes made through this
 * replica apply at once (`forget`); changes made through another one within this time.
 */
const TARGET_CACHE_MS = 2000;

/* eslint-disable-next-line max-lines-per-function --
  the bus API's short handlers share the tool cache and the calls in flight */
export function createToolBusApi(deps: {
  repository: ServerRepository;
  directory: DirectoryClient;
  pool: ConnectionPool;
  callTimeoutMs: number;
  clock: Clock;
}) {
  const { repository, directory } = deps;
  type Target = { tool: ToolRecord; server: ServerRecord } | null;
  const targets = new Map<string, { found: Target; expiresAt: number }>();
  /** Calls running on this replica that a CancelToolCall may stop, by their callId. */
  const running = new Map<string, AbortController>();

  /** The tool and its server, from a short-lived cache: the database stays off the hot path. */
  async function findTarget(
    lookup: { toolId: string } | { serverId: string; name: string },
  ): Promise<Target> {
    const key =
      'toolId' in lookup ? `id:${lookup.toolId}` : `name:${lookup.serverId}:${lookup.name}`;
    const now = deps.clock.now().getTime();
    const cached = targets.get(key);
    if (cached && cached.expiresAt > now) return cached.found;
    const found: Target = await repository.findToolWithServer(lookup);
    if (targets.size > 10_000) targets.clear();
    targets.set(key, { found, expiresAt: now + TARGET_CACHE_MS });
    return found;
  }

  async function usableServers(workspaceId: string, userId: string): Promise<ServerRecord[]> {
    const role = await directory.confirmedRoleOf(workspaceId, userId);
    if (!role) return [];
    return (await repository.listByWorkspace(workspaceId)).filter(
      (server) => server.enabled && canUse(server, userId, role),
    );
  }

  async function resolveTool(
    request: CallTool,
  ): Promise<{ server: ServerRecord; tool: ToolRecord }> {
    let lookup: { toolId: string } | { serverId: string; name: string };
    if (request.toolId) lookup = { toolId: request.toolId };
    else if (request.serverId && request.toolName) {
      lookup = { serverId: request.serverId, name: request.toolName };
    } else {
      throw new AppError('VALIDATION_ERROR', 'toolId, or serverId and toolName, are required');
    }
    const found = await findTarget(lookup);
    const notFound = new AppError('NOT_FOUND', 'Tool not found');
    if (!found || found.server.workspaceId !== request.workspaceId) throw notFound;
    const { server, tool } = found;
    if (!tool.enabled || !server.enabled) throw notFound;
    const role = await directory.confirmedRoleOf(server.workspaceId, request.userId);
    if (!canUse(server, request.userId, role)) throw notFound;
    return found;
  }

  return {
    /** Drops cached tools and servers after a change made through this replica. */
    forget(): void {
      targets.clear();
    },

    async listTools(request: ListTools): Promise<z.infer<typeof ListToolsReply>> {
      const servers = await usableServers(request.workspaceId, request.userId);
      const names = new Map(servers.map((server) => [server.id, server.name]));
      const tools = await repository.toolsOf(servers.map((server) => server.id));
      return {
        tools: tools
          .filter((tool) => tool.enabled)
          .map((tool) => ({
            id: tool.id,
            name: tool.name,
            description: tool.description,
            serverId: tool.serverId,
            serverName: names.get(tool.serverId) ?? '',
            inputSchema: tool.inputSchema,
          })),
      };
    },

    /**
     * Stops a call running on this replica (other replicas ignore the callId): the SDK aborts
     * the request and tells the MCP server with `notifications/cancelled`.
     */
    cancelToolCall(request: CancelToolCall): void {
      running.get(request.callId)?.abort();
    },

    async callTool(request: CallTool): Promise<z.infer<typeof CallToolReply>> {
      const startedAt = deps.clock.now().getTime();
      const observe = (outcome: 'ok' | 'tool_error' | 'failed' | 'cancelled' | 'denied') =>
        metrics.mcpToolCallDuration.observe(
          { outcome },
          Math.max(0, deps.clock.now().getTime() - startedAt) / 1000,
        );
      const { server, tool } = await resolveTool(request).catch((error: unknown) => {
        observe('denied');
        throw error;
      });
      const timeout = request.timeoutMs ?? deps.callTimeoutMs;
      const cancellation = new AbortController();
      if (request.callId) running.set(request.callId, cancellation);
      const call = () =>
        deps.pool.with(
          server,
          request.userId,
          (connection) =>
            connection.client.callTool(
              {
                name: tool.name,
                arguments: request.arguments,
                ...(request.idempotencyKey
                  ? { _meta: { idempotencyKey: request.idempotencyKey } }
                  : {}),
              },
              {
                timeout,
                signal: cancellation.signal,
                // The stored definition spares the SDK a tools/list to find the tool's schema.
                toolDefinition: {
                  name: tool.name,
                  description: tool.description,
                  inputSchema: { type: 'object', ...tool.inputSchema },
                },
              },
            ),
          cancellation.signal,
        );
      try {
        const result = await runInSpan(
          'mcp tools/call',
          {
            role: 'client',
            attributes: { 'wap.mcp.server.id': server.id, 'wap.mcp.tool.name': tool.name },
          },
          () =>
            call().catch((error: unknown) => {
              // 404 on a pooled session: the server forgot the session (restart, expiry) and
              // ran nothing, so one retry on a fresh session is safe. Other failures may have
              // run the tool and are not retried.
              if (httpStatusOf(error) === 404) return call();
              throw error;
            }),
        );
        observe(result.isError === true ? 'tool_error' : 'ok');
        return {
          isError: result.isError === true,
          content: Array.isArray(result.content) ? result.content : [],
          ...(result.structuredContent !== undefined
            ? { structuredContent: result.structuredContent }
            : {}),
        };
      } catch (error) {
        observe(cancellation.signal.aborted ? 'cancelled' : 'failed');
        if (cancellation.signal.aborted) {
          throw new AppError('MCP_CALL_FAILED', 'The tool call was cancelled');
        }
        throw new AppError('MCP_CALL_FAILED', describeFailure(error, timeout));
      } finally {
        if (request.callId) running.delete(request.callId);
      }
    },
  };
}
