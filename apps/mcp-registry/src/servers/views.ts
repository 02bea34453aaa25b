import type {
  McpServerShapeA,
  McpServerShapeB,
  McpServerView,
  McpToolRecord,
} from '@wap/contracts';
import type { ServerRecord, ToolRecord } from './repository';

export function shapeA(server: ServerRecord): McpServerShapeA {
  return {
    id: server.id,
    workspace_id: server.workspaceId,
    name: server.name,
    description: server.description,
    server_url: server.serverUrl,
    server_type: 'custom',
    enabled: server.enabled,
    access_mode: server.accessMode,
    created_at: server.createdAt.toISOString(),
  };
}

export function shapeB(server: ServerRecord): McpServerShapeB {
  return {
    id: server.id,
    workspace_id: server.workspaceId,
    name: server.name,
    description: server.description,
    server_url: server.serverUrl,
    is_enabled: server.enabled,
    access_mode: server.accessMode,
    accessible_to: server.accessibleTo,
    created_by: server.createdBy,
    created_at: server.createdAt.toISOString(),
    updated_at: server.updatedAt.toISOString(),
  };
}

export function serverView(server: ServerRecord): McpServerView {
  return {
    ...shapeB(server),
    server_type: 'custom',
    auth_type: server.auth.authType,
    header_names: server.headerNames,
    transport: server.transport,
    sync_status: server.syncStatus,
    last_synced_at: server.lastSyncedAt?.toISOString() ?? null,
    sync_errors: server.syncErrors,
  };
}

export function toolView(tool: ToolRecord, serverName: string): McpToolRecord {
  return {
    id: tool.id,
    name: tool.name,
    description: tool.description,
    mcpServerId: tool.serverId,
    mcpServerName: serverName,
    isEnabled: tool.enabled,
    inputSchema: tool.inputSchema,
    lastDiscoveredAt: tool.lastDiscoveredAt.toISOString(),
    changedAt: tool.changedAt.toISOString(),
  };
}
