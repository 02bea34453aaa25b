import { and, asc, eq } from 'drizzle-orm';
import { conversations, participants } from '../db/schema';
import type { ConversationStore, ParticipantRecord } from './records';

export async function listConversationParticipants(
  { db }: Pick<ConversationStore, 'db'>,
  conversationId: string,
): Promise<ParticipantRecord[]> {
  return db
    .select({
      userId: participants.userId,
      canEdit: participants.canEdit,
      createdAt: participants.createdAt,
    })
    .from(participants)
    .where(eq(participants.conversationId, conversationId))
    .orderBy(asc(participants.createdAt), asc(participants.userId));
}

/**
 * Adds or updates participants in one transaction; a `private` chat becomes `invited` (an
 * invite means to share). Returns the chat's participants after the change.
 */
export async function inviteParticipants(
  { db, clock }: ConversationStore,
  conversationId: string,
  userIds: readonly string[],
  canEdit: boolean,
): Promise<ParticipantRecord[]> {
  // Inviting no one (only the owner, say) changes nothing, and an insert needs a row.
  if (userIds.length === 0) return listConversationParticipants({ db }, conversationId);
  const now = clock.now();
  await db.transaction(async (tx) => {
    await tx
      .insert(participants)
      .values(userIds.map((userId) => ({ conversationId, userId, canEdit, createdAt: now })))
      .onConflictDoUpdate({
        target: [participants.conversationId, participants.userId],
        set: { canEdit },
      });
    await tx
      .update(conversations)
      .set({ accessType: 'invited', updatedAt: now })
      .where(and(eq(conversations.id, conversationId), eq(conversations.accessType, 'private')));
  });
  return listConversationParticipants({ db }, conversationId);
}

/** False: the user was no participant of the chat. */
export async function removeParticipant(
  { db }: ConversationStore,
  conversationId: string,
  userId: string,
): Promise<boolean> {
  const removed = await db
    .delete(participants)
    .where(and(eq(participants.conversationId, conversationId), eq(participants.userId, userId)))
    .returning({ userId: participants.userId });
  return removed.length > 0;
}
