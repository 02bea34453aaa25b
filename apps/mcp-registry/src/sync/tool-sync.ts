import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { AppError } from '@wap/contracts';
import { metrics } from '@wap/observability';
import { canonicalJson, KvConflictError, type Clock, type KvBucket } from '@wap/platform';
import type { DiscoveredTool, ServerRecord, ServerRepository } from '../servers/repository';
import { credentialWasUnavailable, describeFailure, type Connect } from './connections';

/** One problem met during a sync: a tool that could not be stored, or the whole sync failing. */
export interface SyncIssue {
  message: string;
  tool?: string;
}

export interface SyncResult {
  /** Tools the server listed. */
  discovered: number;
  /** Tools written (added, changed or confirmed). */
  synced: number;
  errors: SyncIssue[];
  /** True when the server could not be reached or listed at all. */
  failed: boolean;
  /** Failed for want of the caller's own connected account, not for the server. */
  needsAccount?: boolean;
}

/** A page walk that does not end is a broken server, not a big one. */
const MAX_PAGES = 1000;

export function toolHash(tool: Omit<DiscoveredTool, 'hash'>): string {
  return createHash('sha256')
    .update(canonicalJson([tool.name, tool.description, tool.inputSchema]))
    .digest('hex');
}

export function syncLockKey(serverId: string): string {
  return `server.${serverId}`;
}

export type ToolSync = ReturnType<typeof createToolSync>;

/**
 * Discovers a server's tools and stores them. One sync per server at a time across replicas:
 * the lock is an atomic KV create in a bucket whose TTL frees the lock of a crashed replica.
 */
/* eslint-disable-next-line max-lines-per-function --
  the sync's short steps share the syncs running in this process */
export function createToolSync(deps: {
  repository: ServerRepository;
  locks: KvBucket;
  connect: Connect;
  syncTimeoutMs: number;
  clock: Clock;
  logger: Logger;
}) {
  const { repository, locks, logger } = deps;

  async function discover(server: ServerRecord, userId: string, deadline: number) {
    const connection = await deps.connect(server, { userId });
    try {
      const listed: Array<{ name: unknown; description?: unknown; inputSchema?: unknown }> = [];
      let cursor: string | undefined;
      const seen = new Set<string>();
      for (let page = 0; ; page += 1) {
        if (page >= MAX_PAGES) throw new Error(`tools/list did not end after ${MAX_PAGES} pages`);
        const remaining = deadline - performance.now();
        if (remaining <= 0) throw new Error('Sync timed out');
        const result = await connection.client.listTools(cursor ? { cursor } : {}, {
          timeout: remaining,
        });
        listed.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
        if (seen.has(cursor)) throw new Error('tools/list repeated a cursor');
        seen.add(cursor);
      }
      return { listed, transport: connection.transport };
    } finally {
      await connection.close().catch(() => undefined);
    }
  }

  async function syncHoldingLock(server: ServerRecord, userId: string): Promise<SyncResult> {
    await repository.recordSync(server.id, { status: 'running', errors: server.syncErrors });
    // Elapsed time, not the time of day: monotonic, whatever the clock says.
    const deadline = performance.now() + deps.syncTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    try {
      const { listed, transport } = await Promise.race([
        discover(server, userId, deadline),
        new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => reject(new Error('Sync timed out')), deps.syncTimeoutMs);
        }),
      ]);
      const errors: SyncIssue[] = [];
      const tools: DiscoveredTool[] = [];
      const names = new Set<string>();
      for (const entry of listed) {
        const name = typeof entry.name === 'string' ? entry.name : '';
        if (!name || name.length > 200 || names.has(name)) {
          errors.push({
            message: 'A tool without a valid, unique name was skipped',
            tool: name || undefined,
          });
          continue;
        }
        const inputSchema =
          entry.inputSchema &&
          typeof entry.inputSchema === 'object' &&
          !Array.isArray(entry.inputSchema)
            ? (entry.inputSchema as Record<string, unknown>)
            : null;
        if (!inputSchema) {
          errors.push({ message: 'The tool has no input schema object; skipped', tool: name });
          continue;
        }
        names.add(name);
        const description = typeof entry.description === 'string' ? entry.description : '';
        tools.push({
          name,
          description,
          inputSchema,
          hash: toolHash({ name, description, inputSchema }),
        });
      }
      const synced = await repository.upsertTools(server, tools);
      await repository.recordSync(server.id, {
        status: 'succeeded',
        errors: errors.map((issue) =>
          issue.tool ? `${issue.tool}: ${issue.message}` : issue.message,
        ),
        transport,
      });
      logger.info({ serverId: server.id, discovered: listed.length, synced }, 'mcp tools synced');
      metrics.mcpSyncs.inc({ outcome: 'ok' });
      return { discovered: listed.length, synced, errors, failed: false };
    } catch (error) {
      const message = describeFailure(error, deps.syncTimeoutMs);
      logger.info({ serverId: server.id, reason: message }, 'mcp tool sync failed');
      metrics.mcpSyncs.inc({ outcome: 'failed' });
      await repository.recordSync(server.id, { status: 'failed', errors: [message] });
      const needsAccount = server.auth.authType === 'account' && credentialWasUnavailable(error);
      return {
        discovered: 0,
        synced: 0,
        errors: [{ message }],
        failed: true,
        ...(needsAccount ? { needsAccount } : {}),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Syncs now, connecting as `userId` (whose own account an account server sees); fails with
   * MCP_SYNC_IN_PROGRESS when a sync of the server is running anywhere.
   */
  async function run(server: ServerRecord, userId: string): Promise<SyncResult> {
    const key = syncLockKey(server.id);
    try {
      await locks.create(key, new TextEncoder().encode(deps.clock.now().toISOString()));
    } catch (error) {
      if (error instanceof KvConflictError) {
        throw new AppError(
          'MCP_SYNC_IN_PROGRESS',
          'A tool sync of this MCP server is already running',
        );
      }
      throw error;
    }
    try {
      return await syncHoldingLock(server, userId);
    } finally {
      await locks.delete(key).catch((error: unknown) => {
        logger.warn({ err: error, serverId: server.id }, 'could not release the sync lock');
      });
    }
  }

  const background = new Set<Promise<unknown>>();

  return {
    run,
    /** Starts a sync without waiting (after registration, on a change notification). */
    runInBackground(server: ServerRecord, userId: string): void {
      const task = run(server, userId).catch((error: unknown) => {
        if (error instanceof AppError && error.code === 'MCP_SYNC_IN_PROGRESS') return;
        logger.error({ err: error, serverId: server.id }, 'background tool sync failed');
      });
      background.add(task);
      void task.finally(() => background.delete(task));
    },
    /** Waits for background syncs (on stop, so none writes after the database closes). */
    async drain(): Promise<void> {
      await Promise.all([...background]);
    },
  };
}
