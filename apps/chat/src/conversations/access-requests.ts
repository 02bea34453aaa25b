import { and, asc, eq, sql } from 'drizzle-orm';
import type { SqlDatabase } from '@wap/platform';
import { accessRequests, conversations, participants, people } from '../db/schema';
import { personName } from './people';
import {
  toRequest,
  type AccessRequestRecord,
  type AccessRequestRow,
  type ConversationStore,
} from './records';

/** The pending request of one requester, for the partial unique index's conflict target. */
const PENDING = sql`status = 'pending'`;

async function requestWithName(
  db: SqlDatabase,
  row: AccessRequestRow,
): Promise<AccessRequestRecord> {
  return toRequest(row, await personName({ db }, row.userId));
}

/** The requester's pending request of the chat (at most one: a partial unique index). */
const pendingRequestOf = (conversationId: string, userId: string) =>
  and(
    eq(accessRequests.conversationId, conversationId),
    eq(accessRequests.userId, userId),
    eq(accessRequests.status, 'pending'),
  );

/** Whether the user has a pending access request for the chat. */
export async function hasPendingAccessRequest(
  { db }: ConversationStore,
  conversationId: string,
  userId: string,
): Promise<boolean> {
  const [row] = await db
    .select({ id: accessRequests.id })
    .from(accessRequests)
    .where(pendingRequestOf(conversationId, userId));
  return row !== undefined;
}

/**
 * The requester's one pending request: created (`created: true`) or the one already there.
 * The partial unique index settles concurrent requests; the loser reads the winner's row.
 */
export async function requestAccess(
  { db, clock, ids }: ConversationStore,
  conversationId: string,
  userId: string,
): Promise<{ request: AccessRequestRecord; created: boolean }> {
  // A pending request read back may be decided in between: try again (a new one is due).
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const [inserted] = await db
      .insert(accessRequests)
      .values({
        id: ids.uuid(),
        conversationId,
        userId,
        status: 'pending',
        createdAt: clock.now(),
        decidedAt: null,
        decidedBy: null,
      })
      .onConflictDoNothing({
        target: [accessRequests.conversationId, accessRequests.userId],
        where: PENDING,
      })
      .returning();
    if (inserted) return { request: await requestWithName(db, inserted), created: true };
    const [pending] = await db
      .select()
      .from(accessRequests)
      .where(pendingRequestOf(conversationId, userId));
    if (pending) return { request: await requestWithName(db, pending), created: false };
  }
  throw new Error('access request neither created nor found pending');
}

/** The chat's pending requests, oldest first, each with its requester's name. */
export async function pendingAccessRequests(
  { db }: ConversationStore,
  conversationId: string,
): Promise<AccessRequestRecord[]> {
  const rows = await db
    .select({ request: accessRequests, userName: people.name })
    .from(accessRequests)
    .leftJoin(people, eq(people.userId, accessRequests.userId))
    .where(
      and(eq(accessRequests.conversationId, conversationId), eq(accessRequests.status, 'pending')),
    )
    .orderBy(asc(accessRequests.createdAt), asc(accessRequests.id));
  return rows.map((row) => toRequest(row.request, row.userName));
}

/** A request of this chat (a request of another chat is not found). */
export async function findAccessRequest(
  { db }: ConversationStore,
  conversationId: string,
  requestId: string,
): Promise<AccessRequestRecord | null> {
  const [row] = await db
    .select()
    .from(accessRequests)
    .where(
      and(eq(accessRequests.id, requestId), eq(accessRequests.conversationId, conversationId)),
    );
  return row ? requestWithName(db, row) : null;
}

/**
 * Decides a pending request: a conditional update, so of two decisions exactly one applies.
 * Granting also makes the requester a participant (`canEdit`) and a `private` chat
 * `invited`, in the same transaction. Null when the request was no longer pending.
 */
export async function decideAccessRequest(
  { db, clock }: ConversationStore,
  request: AccessRequestRecord,
  decision: { status: 'granted'; canEdit: boolean } | { status: 'declined' },
  decidedBy: string,
): Promise<AccessRequestRecord | null> {
  const now = clock.now();
  const decided = await db.transaction(async (tx) => {
    const [row] = await tx
      .update(accessRequests)
      .set({ status: decision.status, decidedAt: now, decidedBy })
      .where(and(eq(accessRequests.id, request.id), eq(accessRequests.status, 'pending')))
      .returning();
    if (!row || decision.status === 'declined') return row;
    await tx
      .insert(participants)
      .values({
        conversationId: row.conversationId,
        userId: row.userId,
        canEdit: decision.canEdit,
        createdAt: now,
      })
      .onConflictDoUpdate({
        target: [participants.conversationId, participants.userId],
        set: { canEdit: decision.canEdit },
      });
    await tx
      .update(conversations)
      .set({ accessType: 'invited', updatedAt: now })
      .where(
        and(eq(conversations.id, row.conversationId), eq(conversations.accessType, 'private')),
      );
    return row;
  });
  return decided ? toRequest(decided, request.userName) : null;
}
