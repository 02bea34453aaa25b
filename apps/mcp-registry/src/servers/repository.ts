import { and, asc, eq, inArray } from 'drizzle-orm';
import type { McpAccessMode, McpAuthType } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { servers, tools } from '../db/schema';
import type { StoredAuth, StoredHeaders } from './credentials';

export type SyncStatus = 'pending' | 'running' | 'succeeded' | 'failed';
export type TransportKind = 'streamable_http' | 'sse';

/** A server row as the service uses it. */
export interface ServerRecord {
  id: string;
  workspaceId: string;
  name: string;
  description: string;
  serverUrl: string;
  serverType: string;
  enabled: boolean;
  accessMode: McpAccessMode;
  accessibleTo: string[];
  auth: StoredAuth;
  headerNames: string[];
  sealedHeaders: string | null;
  transport: TransportKind | null;
  syncStatus: SyncStatus;
  syncErrors: string[];
  lastSyncedAt: Date | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface ToolRecord {
  id: string;
  serverId: string;
  workspaceId: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  hash: string;
  enabled: boolean;
  lastDiscoveredAt: Date;
  changedAt: Date;
}

/** A tool as a server listed it, with its hash. */
export interface DiscoveredTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  hash: string;
}

export interface NewServer {
  workspaceId: string;
  name: string;
  description: string;
  serverUrl: string;
  accessMode: McpAccessMode;
  accessibleTo: string[];
  createdBy: string;
}

export interface ServerChanges {
  name?: string;
  description?: string;
  enabled?: boolean;
  accessMode?: McpAccessMode;
  accessibleTo?: string[];
  auth?: StoredAuth;
  headers?: StoredHeaders;
}

type ServerRow = typeof servers.$inferSelect;
type ToolRow = typeof tools.$inferSelect;

function toServer(row: ServerRow): ServerRecord {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    description: row.description,
    serverUrl: row.serverUrl,
    serverType: row.serverType,
    enabled: row.enabled,
    accessMode: row.accessMode as McpAccessMode,
    accessibleTo: row.accessibleTo,
    auth: {
      authType: row.authType as McpAuthType,
      authHeaderName: row.authHeaderName,
      authPrefix: row.authPrefix,
      authReference: row.authReference,
      sealedSecret: row.sealedSecret,
    },
    headerNames: row.headerNames,
    sealedHeaders: row.sealedHeaders,
    transport: row.transport as TransportKind | null,
    syncStatus: row.syncStatus as SyncStatus,
    syncErrors: row.syncErrors,
    lastSyncedAt: row.lastSyncedAt,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function toTool(row: ToolRow): ToolRecord {
  return { ...row };
}

export type ServerRepository = ReturnType<typeof createServerRepository>;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createServerRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  return {
    newId: () => ids.uuid(),

    async insert(
      id: string,
      server: NewServer,
      secrets: { auth: StoredAuth; headers: StoredHeaders },
    ): Promise<ServerRecord> {
      const now = clock.now();
      const [row] = await db
        .insert(servers)
        .values({
          id,
          ...server,
          serverType: 'custom',
          enabled: true,
          ...secrets.auth,
          ...secrets.headers,
          transport: null,
          syncStatus: 'pending',
          syncErrors: [],
          lastSyncedAt: null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return toServer(row as ServerRow);
    },

    async find(id: string): Promise<ServerRecord | null> {
      const [row] = await db.select().from(servers).where(eq(servers.id, id));
      return row ? toServer(row) : null;
    },

    async listByWorkspace(workspaceId: string): Promise<ServerRecord[]> {
      const rows = await db
        .select()
        .from(servers)
        .where(eq(servers.workspaceId, workspaceId))
        .orderBy(asc(servers.createdAt), asc(servers.id));
      return rows.map(toServer);
    },

    async update(id: string, changes: ServerChanges): Promise<ServerRecord | null> {
      const { auth, headers, ...plain } = changes;
      const [row] = await db
        .update(servers)
        .set({ ...plain, ...auth, ...headers, updatedAt: clock.now() })
        .where(eq(servers.id, id))
        .returning();
      return row ? toServer(row) : null;
    },

    async remove(id: string): Promise<boolean> {
      const removed = await db
        .delete(servers)
        .where(eq(servers.id, id))
        .returning({ id: servers.id });
      return removed.length > 0;
    },

    async recordSync(
      id: string,
      outcome: { status: SyncStatus; errors: string[]; transport?: TransportKind | null },
    ): Promise<void> {
      const now = clock.now();
      await db
        .update(servers)
        .set({
          syncStatus: outcome.status,
          syncErrors: outcome.errors,
          ...(outcome.transport !== undefined ? { transport: outcome.transport } : {}),
          ...(outcome.status === 'running' ? {} : { lastSyncedAt: now }),
        })
        .where(eq(servers.id, id));
    },

    /** Every sealed value, for key rotation. */
    async listSealed(): Promise<
      Array<{
        id: string;
        workspaceId: string;
        sealedSecret: string | null;
        sealedHeaders: string | null;
      }>
    > {
      return db
        .select({
          id: servers.id,
          workspaceId: servers.workspaceId,
          sealedSecret: servers.sealedSecret,
          sealedHeaders: servers.sealedHeaders,
        })
        .from(servers);
    },

    async replaceSealed(
      id: string,
      sealed: { sealedSecret: string | null; sealedHeaders: string | null },
    ): Promise<void> {
      await db.update(servers).set(sealed).where(eq(servers.id, id));
    },

    async toolsOf(serverIds: string[]): Promise<ToolRecord[]> {
      if (serverIds.length === 0) return [];
      const rows = await db
        .select()
        .from(tools)
        .where(inArray(tools.serverId, serverIds))
        .orderBy(asc(tools.serverId), asc(tools.name));
      return rows.map(toTool);
    },

    async findTool(toolId: string): Promise<ToolRecord | null> {
      const [row] = await db.select().from(tools).where(eq(tools.id, toolId));
      return row ? toTool(row) : null;
    },

    /** A tool with its server in one query (the hot path of every tool call). */
    async findToolWithServer(
      lookup: { toolId: string } | { serverId: string; name: string },
    ): Promise<{ tool: ToolRecord; server: ServerRecord } | null> {
      const where =
        'toolId' in lookup
          ? eq(tools.id, lookup.toolId)
          : and(eq(tools.serverId, lookup.serverId), eq(tools.name, lookup.name));
      const [row] = await db
        .select({ tool: tools, server: servers })
        .from(tools)
        .innerJoin(servers, eq(servers.id, tools.serverId))
        .where(where);
      return row ? { tool: toTool(row.tool), server: toServer(row.server) } : null;
    },

    async setToolEnabled(toolId: string, enabled: boolean): Promise<ToolRecord | null> {
      const [row] = await db.update(tools).set({ enabled }).where(eq(tools.id, toolId)).returning();
      return row ? toTool(row) : null;
    },

    /**
     * Upserts what a sync discovered in one transaction: new tools are added enabled, a tool
     * whose hash changed is updated (changed_at moves), every listed tool gets
     * last_discovered_at; `enabled` is never touched, and tools the server no longer lists are
     * removed only when the listing is not empty (a server that suddenly lists nothing is more
     * likely broken than empty). Returns how many rows were written.
     */
    async upsertTools(
      server: { id: string; workspaceId: string },
      discovered: DiscoveredTool[],
    ): Promise<number> {
      const now = clock.now();
      return db.transaction(async (tx) => {
        const existing = await tx.select().from(tools).where(eq(tools.serverId, server.id));
        const byName = new Map(existing.map((row) => [row.name, row]));
        let written = 0;
        for (const tool of discovered) {
          const current = byName.get(tool.name);
          if (!current) {
            await tx.insert(tools).values({
              id: ids.uuid(),
              serverId: server.id,
              workspaceId: server.workspaceId,
              ...tool,
              enabled: true,
              lastDiscoveredAt: now,
              changedAt: now,
            });
          } else if (current.hash !== tool.hash) {
            await tx
              .update(tools)
              .set({
                description: tool.description,
                inputSchema: tool.inputSchema,
                hash: tool.hash,
                lastDiscoveredAt: now,
                changedAt: now,
              })
              .where(eq(tools.id, current.id));
          } else {
            await tx.update(tools).set({ lastDiscoveredAt: now }).where(eq(tools.id, current.id));
          }
          written += 1;
        }
        if (discovered.length > 0) {
          const listed = new Set(discovered.map((tool) => tool.name));
          const gone = existing.filter((row) => !listed.has(row.name)).map((row) => row.id);
          if (gone.length > 0) await tx.delete(tools).where(inArray(tools.id, gone));
        }
        return written;
      });
    },
  };
}
