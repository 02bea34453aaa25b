import { and, count, desc, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { extensionTokens, users } from '../db/schema';

export interface ExtensionTokenRecord {
  id: string;
  name: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
}

/** A token's record with its person, as verifying a presented token needs it. */
export interface ExtensionTokenHolder {
  tokenId: string;
  userId: string;
  revoked: boolean;
  expiresAt: Date;
  lastUsedAt: Date | null;
  user: { id: string; subject: string; email: string; name: string };
}

/** How stale `last_used_at` may get: one write a minute per token, not one per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createExtensionTokenRepository(deps: {
  db: SqlDatabase;
  clock: Clock;
  ids: IdSource;
}) {
  const { db, clock, ids } = deps;
  const active = (userId: string) =>
    and(
      eq(extensionTokens.userId, userId),
      isNull(extensionTokens.revokedAt),
      gt(extensionTokens.expiresAt, clock.now()),
    );

  return {
    async listActive(userId: string): Promise<ExtensionTokenRecord[]> {
      return db
        .select({
          id: extensionTokens.id,
          name: extensionTokens.name,
          createdAt: extensionTokens.createdAt,
          expiresAt: extensionTokens.expiresAt,
          lastUsedAt: extensionTokens.lastUsedAt,
        })
        .from(extensionTokens)
        .where(active(userId))
        .orderBy(desc(extensionTokens.createdAt), desc(extensionTokens.id));
    },

    /**
     * Records a new token unless the person already holds `limit` active ones (null then). The
     * person's row is locked first, so two issues at once cannot both pass the count.
     */
    async createWithin(
      token: { userId: string; name: string; lifetimeMs: number },
      limit: number,
    ): Promise<ExtensionTokenRecord | null> {
      return db.transaction(async (tx) => {
        await tx
          .select({ id: users.id })
          .from(users)
          .where(eq(users.id, token.userId))
          .for('update');
        const [held] = await tx
          .select({ tokens: count() })
          .from(extensionTokens)
          .where(active(token.userId));
        if ((held?.tokens ?? 0) >= limit) return null;
        // Whole seconds, as the token's `iat` and `exp` are: the record and the token agree.
        const createdAt = new Date(Math.floor(clock.now().getTime() / 1000) * 1000);
        const record: ExtensionTokenRecord = {
          id: ids.uuid(),
          name: token.name,
          createdAt,
          expiresAt: new Date(createdAt.getTime() + token.lifetimeMs),
          lastUsedAt: null,
        };
        await tx.insert(extensionTokens).values({ ...record, userId: token.userId });
        return record;
      });
    },

    /** Revokes one of the person's own active tokens; false when they hold no such token. */
    async revoke(userId: string, tokenId: string): Promise<boolean> {
      const revoked = await db
        .update(extensionTokens)
        .set({ revokedAt: clock.now() })
        .where(and(eq(extensionTokens.id, tokenId), active(userId)))
        .returning({ id: extensionTokens.id });
      return revoked.length > 0;
    },

    async findHolder(tokenId: string): Promise<ExtensionTokenHolder | null> {
      const [row] = await db
        .select({
          tokenId: extensionTokens.id,
          userId: extensionTokens.userId,
          revokedAt: extensionTokens.revokedAt,
          expiresAt: extensionTokens.expiresAt,
          lastUsedAt: extensionTokens.lastUsedAt,
          subject: users.subject,
          email: users.email,
          name: users.name,
        })
        .from(extensionTokens)
        .innerJoin(users, eq(users.id, extensionTokens.userId))
        .where(eq(extensionTokens.id, tokenId));
      if (!row) return null;
      return {
        tokenId: row.tokenId,
        userId: row.userId,
        revoked: row.revokedAt !== null,
        expiresAt: row.expiresAt,
        lastUsedAt: row.lastUsedAt,
        user: { id: row.userId, subject: row.subject, email: row.email, name: row.name },
      };
    },

    /** Notes a use, at most once a minute per token. */
    async noteUse(holder: ExtensionTokenHolder): Promise<void> {
      const now = clock.now();
      const staleBefore = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
      if (holder.lastUsedAt && holder.lastUsedAt > staleBefore) return;
      await db
        .update(extensionTokens)
        .set({ lastUsedAt: now })
        .where(
          and(
            eq(extensionTokens.id, holder.tokenId),
            or(isNull(extensionTokens.lastUsedAt), lt(extensionTokens.lastUsedAt, staleBefore)),
          ),
        );
    },
  };
}

export type ExtensionTokenRepository = ReturnType<typeof createExtensionTokenRepository>;
