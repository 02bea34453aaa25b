import { and, eq, lt, or } from 'drizzle-orm';
import type { Clock, SqlDatabase } from '@wap/platform';
import { accountConnections, oauthClients, pendingAuthorizations } from '../db/schema';

/** The platform's OAuth client at one server's authorization server. */
export type OAuthClientRecord = typeof oauthClients.$inferSelect;
/** One user's sealed tokens at one server. */
export type AccountConnectionRecord = typeof accountConnections.$inferSelect;
export type PendingAuthorizationRecord = typeof pendingAuthorizations.$inferSelect;

export type AccountRepository = ReturnType<typeof createAccountRepository>;

/** Connected accounts: OAuth clients per server, authorizations under way, tokens per user. */
/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createAccountRepository(deps: { db: SqlDatabase; clock: Clock }) {
  const { db, clock } = deps;
  const connectionOf = (serverId: string, userId: string) =>
    and(eq(accountConnections.serverId, serverId), eq(accountConnections.userId, userId));

  return {
    async findClient(serverId: string): Promise<OAuthClientRecord | null> {
      const [row] = await db.select().from(oauthClients).where(eq(oauthClients.serverId, serverId));
      return row ?? null;
    },

    async saveClient(client: OAuthClientRecord): Promise<void> {
      const { serverId: _server, ...rest } = client;
      await db
        .insert(oauthClients)
        .values(client)
        .onConflictDoUpdate({ target: oauthClients.serverId, set: rest });
    },

    /**
     * Starts an authorization: it replaces the person's earlier one at the same server (one
     * under way per person and server), and those of anyone that have expired are cleared.
     */
    async addPending(pending: PendingAuthorizationRecord): Promise<void> {
      await db
        .delete(pendingAuthorizations)
        .where(
          or(
            lt(pendingAuthorizations.expiresAt, clock.now()),
            and(
              eq(pendingAuthorizations.serverId, pending.serverId),
              eq(pendingAuthorizations.userId, pending.userId),
            ),
          ),
        );
      await db.insert(pendingAuthorizations).values(pending);
    },

    /**
     * Takes an authorization of this user out, once: a second use of the state, another user's
     * state, or an expired one find nothing.
     */
    async takePending(state: string, userId: string): Promise<PendingAuthorizationRecord | null> {
      const [row] = await db
        .delete(pendingAuthorizations)
        .where(
          and(eq(pendingAuthorizations.state, state), eq(pendingAuthorizations.userId, userId)),
        )
        .returning();
      if (!row || row.expiresAt.getTime() <= clock.now().getTime()) return null;
      return row;
    },

    async findConnection(
      serverId: string,
      userId: string,
    ): Promise<AccountConnectionRecord | null> {
      const [row] = await db
        .select()
        .from(accountConnections)
        .where(connectionOf(serverId, userId));
      return row ?? null;
    },

    async saveConnection(connection: AccountConnectionRecord): Promise<void> {
      const { serverId: _server, userId: _user, ...rest } = connection;
      await db
        .insert(accountConnections)
        .values(connection)
        .onConflictDoUpdate({
          target: [accountConnections.serverId, accountConnections.userId],
          set: rest,
        });
    },

    /**
     * Runs `refresh` with the connection's row locked, so that two replicas refreshing the same
     * tokens at once do not both spend a refresh token the server rotates: the second finds the
     * first one's tokens. `refresh` returns the new row, or null to delete it.
     */
    async refreshLocked(
      serverId: string,
      userId: string,
      refresh: (
        current: AccountConnectionRecord,
      ) => Promise<AccountConnectionRecord | null | 'unchanged'>,
    ): Promise<AccountConnectionRecord | null> {
      return db.transaction(async (tx) => {
        const [current] = await tx
          .select()
          .from(accountConnections)
          .where(connectionOf(serverId, userId))
          .for('update');
        if (!current) return null;
        const next = await refresh(current);
        if (next === 'unchanged') return current;
        if (next === null) {
          await tx.delete(accountConnections).where(connectionOf(serverId, userId));
          return null;
        }
        const { serverId: _server, userId: _user, ...rest } = next;
        await tx.update(accountConnections).set(rest).where(connectionOf(serverId, userId));
        return next;
      });
    },

    async removeConnection(
      serverId: string,
      userId: string,
    ): Promise<AccountConnectionRecord | null> {
      const [row] = await db
        .delete(accountConnections)
        .where(connectionOf(serverId, userId))
        .returning();
      return row ?? null;
    },

    /** Every connection of a server, taken out (its auth changed away from account). */
    async removeConnectionsOf(serverId: string): Promise<AccountConnectionRecord[]> {
      return db
        .delete(accountConnections)
        .where(eq(accountConnections.serverId, serverId))
        .returning();
    },

    /** Every sealed value, for key rotation. */
    async listSealed() {
      const clients = await db
        .select({ serverId: oauthClients.serverId, sealed: oauthClients.sealedClientSecret })
        .from(oauthClients);
      const connections = await db
        .select({
          serverId: accountConnections.serverId,
          userId: accountConnections.userId,
          sealed: accountConnections.sealedTokens,
        })
        .from(accountConnections);
      const pending = await db
        .select({
          state: pendingAuthorizations.state,
          serverId: pendingAuthorizations.serverId,
          userId: pendingAuthorizations.userId,
          sealed: pendingAuthorizations.sealedCodeVerifier,
        })
        .from(pendingAuthorizations);
      return { clients, connections, pending };
    },

    async replaceClientSecret(serverId: string, sealed: string): Promise<void> {
      await db
        .update(oauthClients)
        .set({ sealedClientSecret: sealed })
        .where(eq(oauthClients.serverId, serverId));
    },

    async replaceTokens(serverId: string, userId: string, sealed: string): Promise<void> {
      await db
        .update(accountConnections)
        .set({ sealedTokens: sealed })
        .where(connectionOf(serverId, userId));
    },

    async replaceCodeVerifier(state: string, sealed: string): Promise<void> {
      await db
        .update(pendingAuthorizations)
        .set({ sealedCodeVerifier: sealed })
        .where(eq(pendingAuthorizations.state, state));
    },
  };
}
