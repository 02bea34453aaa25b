import { and, desc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { type KeysetPosition } from '@wap/bus-protocol';
import { conversations, participants, viewerStates } from '../db/schema';
import { mergeSharedMetadata } from './access';
import {
  toRecord,
  toViewerConversation,
  selectForViewer,
  type ConversationStore,
  type ConversationRecord,
  type ViewerConversation,
  type NewConversation,
  type ConversationChanges,
} from './records';

/** A new chat; its activity starts at its creation and it has no message yet. */
export async function createConversation(
  { db, clock, ids }: ConversationStore,
  input: NewConversation,
): Promise<ConversationRecord> {
  const now = clock.now();
  const [row] = await db
    .insert(conversations)
    .values({
      id: ids.uuid(),
      ...input,
      isArchived: false,
      lastMessage: null,
      lastActivityAt: now,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    })
    .returning();
  if (!row) throw new Error('insert returned no conversation');
  return toRecord(row);
}

/** The conversation, deleted ones included: the guard decides what a caller sees. */
export async function findConversation(
  { db }: ConversationStore,
  id: string,
): Promise<ConversationRecord | null> {
  const [row] = await db.select().from(conversations).where(eq(conversations.id, id));
  return row ? toRecord(row) : null;
}

/** The conversation with the viewer's participant row and pin, in one query. */
export async function findConversationForViewer(
  { db }: ConversationStore,
  id: string,
  userId: string,
): Promise<ViewerConversation | null> {
  const [row] = await selectForViewer(db, userId).where(eq(conversations.id, id));
  return row ? toViewerConversation(row) : null;
}

/**
 * One page of the chats `userId` can open in a workspace they are a member of, newest
 * activity first, ties by id, after `after` — one query. The filter is decision 80's read
 * rule in SQL (owner; `everyone`; `invited` with a participant row); `chatAccess` decides
 * the rest for each row.
 */
export async function listConversationsForViewer(
  { db }: ConversationStore,
  input: {
    workspaceId: string;
    userId: string;
    archived: boolean | null;
    after: KeysetPosition | null;
    limit: number;
  },
): Promise<ViewerConversation[]> {
  const { workspaceId, userId, archived, after, limit } = input;
  const rows = await selectForViewer(db, userId)
    .where(
      and(
        eq(conversations.workspaceId, workspaceId),
        isNull(conversations.deletedAt),
        archived === null ? undefined : eq(conversations.isArchived, archived),
        or(
          eq(conversations.userId, userId),
          eq(conversations.accessType, 'everyone'),
          and(eq(conversations.accessType, 'invited'), isNotNull(participants.userId)),
        ),
        after === null
          ? undefined
          : sql`(${conversations.lastActivityAt}, ${conversations.id}) < (${after.at.toISOString()}::timestamptz, ${after.id}::uuid)`,
      ),
    )
    .orderBy(desc(conversations.lastActivityAt), desc(conversations.id))
    .limit(limit);
  return rows.map(toViewerConversation);
}

/**
 * Applies a PATCH's shared changes in one transaction (the row is locked, so two patches of
 * different metadata keys both land). Null when the chat is gone.
 */
export async function updateConversation(
  { db, clock }: ConversationStore,
  id: string,
  changes: ConversationChanges,
): Promise<ConversationRecord | null> {
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(conversations)
      .where(and(eq(conversations.id, id), isNull(conversations.deletedAt)))
      .for('update');
    if (!current) return null;
    const [row] = await tx
      .update(conversations)
      .set({
        ...(changes.title === undefined ? {} : { title: changes.title }),
        ...(changes.accessType === undefined ? {} : { accessType: changes.accessType }),
        ...(changes.isArchived === undefined ? {} : { isArchived: changes.isArchived }),
        ...(changes.metadata === undefined
          ? {}
          : { metadata: mergeSharedMetadata(current.metadata, changes.metadata) }),
        updatedAt: clock.now(),
      })
      .where(eq(conversations.id, id))
      .returning();
    return row ? toRecord(row) : null;
  });
}

/** The viewer's own pin (decision 81); never touches the chat's shared metadata. */
export async function setConversationStarred(
  { db, clock }: ConversationStore,
  conversationId: string,
  userId: string,
  starred: boolean,
): Promise<void> {
  const now = clock.now();
  await db
    .insert(viewerStates)
    .values({ conversationId, userId, starred, updatedAt: now })
    .onConflictDoUpdate({
      target: [viewerStates.conversationId, viewerStates.userId],
      set: { starred, updatedAt: now },
    });
}

/** Soft delete: the row stays (its id then answers the unknown id's 404). */
export async function softDeleteConversation(
  { db, clock }: ConversationStore,
  id: string,
): Promise<void> {
  const now = clock.now();
  await db
    .update(conversations)
    .set({ deletedAt: now, updatedAt: now })
    .where(and(eq(conversations.id, id), isNull(conversations.deletedAt)));
}
