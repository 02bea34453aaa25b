import type { Logger } from 'pino';
import type { ServerRecord } from '../servers/repository';
import type { Connect } from '../sync/connections';
import type { McpConnection } from '../sync/connector';

interface PooledConnection {
  /** The server's updated_at when connected: a changed URL or credential needs a new connection. */
  version: number;
  connection: Promise<McpConnection>;
  idleTimer?: NodeJS.Timeout;
}

export type ConnectionPool = ReturnType<typeof createConnectionPool>;

/**
 * Keeps one open MCP session per server for tool calls (per server and user, for a server where
 * each person uses their own account), so a call costs one request instead of a handshake plus a
 * request. A session idle for `idleMs` is closed; a failed one is dropped.
 */
export function createConnectionPool(deps: {
  connect: Connect;
  idleMs: number;
  logger: Logger;
  /** Called when a server says its tool list changed, with the user the session acts for. */
  onToolsChanged: (server: ServerRecord, userId: string) => void;
}) {
  const pool = new Map<string, PooledConnection>();
  const keyOf = (server: ServerRecord, userId: string) =>
    server.auth.authType === 'account' ? `${server.id}/${userId}` : server.id;

  function closeEntry(serverId: string, entry: PooledConnection): void {
    clearTimeout(entry.idleTimer);
    if (pool.get(serverId) === entry) pool.delete(serverId);
    void entry.connection.then((connection) => connection.close()).catch(() => undefined);
  }

  function touch(serverId: string, entry: PooledConnection): void {
    clearTimeout(entry.idleTimer);
    entry.idleTimer = setTimeout(() => closeEntry(serverId, entry), deps.idleMs);
    entry.idleTimer.unref();
  }

  return {
    /**
     * Runs `use` on a pooled session; a failure drops the session so the next call reconnects,
     * unless `cancelled` says the caller aborted the call.
     */
    async with<T>(
      server: ServerRecord,
      userId: string,
      use: (connection: McpConnection) => Promise<T>,
      cancelled?: AbortSignal,
    ): Promise<T> {
      const version = server.updatedAt.getTime();
      const key = keyOf(server, userId);
      let entry = pool.get(key);
      if (entry && entry.version !== version) {
        closeEntry(key, entry);
        entry = undefined;
      }
      if (!entry) {
        const created: PooledConnection = {
          version,
          connection: deps.connect(server, {
            userId,
            onToolsChanged: () => deps.onToolsChanged(server, userId),
          }),
        };
        pool.set(key, created);
        entry = created;
      }
      const current = entry;
      try {
        const result = await use(await current.connection);
        touch(key, current);
        return result;
      } catch (error) {
        // A call its caller cancelled says nothing of the session, which is still sending the
        // server `notifications/cancelled`: closing it now could cut that notification off.
        if (cancelled?.aborted) touch(key, current);
        else closeEntry(key, current);
        throw error;
      }
    },
    /** Closes the server's sessions: all of them, or only the one acting for `userId`. */
    drop(serverId: string, userId?: string): void {
      for (const [key, entry] of [...pool.entries()]) {
        const forServer = key === serverId || key.startsWith(`${serverId}/`);
        if (
          forServer &&
          (userId === undefined || key === serverId || key === `${serverId}/${userId}`)
        ) {
          closeEntry(key, entry);
        }
      }
    },
    async closeAll(): Promise<void> {
      const entries = [...pool.entries()];
      pool.clear();
      await Promise.all(
        entries.map(async ([, entry]) => {
          clearTimeout(entry.idleTimer);
          await entry.connection.then((connection) => connection.close()).catch(() => undefined);
        }),
      );
    },
  };
}
