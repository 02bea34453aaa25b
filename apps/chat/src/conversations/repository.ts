import type { z } from 'zod';
import { and, asc, desc, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { AccessType, AccessRequestStatus } from '@wap/contracts';
import type { Clock, IdSource, KeysetPosition, SqlDatabase } from '@wap/platform';
import { accessRequests, conversations, participants, people, viewerStates } from '../db/schema';
import { mergeSharedMetadata } from './access';

/** A conversation row as the service reads it; `deletedAt` set means deleted (a 404 outside). */
export interface ConversationRecord {
  id: string;
  workspaceId: string;
  userId: string;
  projectId: string | null;
  title: string | null;
  source: string | null;
  accessType: AccessType;
  isArchived: boolean;
  /** The shared free-form keys; never `starred`, which is per viewer (decision 81). */
  metadata: Record<string, unknown> | null;
  lastMessage: unknown;
  lastActivityAt: Date;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** A member a chat was shared with. */
export interface ParticipantRecord {
  userId: string;
  canEdit: boolean;
  createdAt: Date;
}

export interface AccessRequestRecord {
  id: string;
  conversationId: string;
  userId: string;
  /** The requester's name as last seen in a session; null when never seen. */
  userName: string | null;
  status: z.infer<typeof AccessRequestStatus>;
  createdAt: Date;
  decidedAt: Date | null;
}

/** A conversation with what one viewer has of it: their participant row and their pin. */
export interface ViewerConversation {
  record: ConversationRecord;
  participant: { canEdit: boolean } | null;
  starred: boolean;
}

export interface NewConversation {
  workspaceId: string;
  userId: string;
  projectId: string | null;
  title: string | null;
  source: string | null;
  accessType: AccessType;
  metadata: Record<string, unknown> | null;
}

export interface ConversationChanges {
  title?: string | null;
  accessType?: AccessType;
  isArchived?: boolean;
  /** A shared-metadata patch: null clears every key; a key set to null is removed. */
  metadata?: Record<string, unknown> | null;
}

export type ConversationRepository = ReturnType<typeof createConversationRepository>;

type ConversationRow = typeof conversations.$inferSelect;
type AccessRequestRow = typeof accessRequests.$inferSelect;

function toRecord(row: ConversationRow): ConversationRecord {
  return { ...row, accessType: AccessType.parse(row.accessType) };
}

function toRequest(row: AccessRequestRow, userName: string | null): AccessRequestRecord {
  return {
    id: row.id,
    conversationId: row.conversationId,
    userId: row.userId,
    userName,
    status: AccessRequestStatus.parse(row.status),
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
  };
}

/** The pending request of one requester, for the partial unique index's conflict target. */
const PENDING = sql`status = 'pending'`;

/** Users whose written name a replica remembers at most (the map starts over past it). */
const REMEMBERED_NAMES_MAX = 10_000;

export function createConversationRepository(deps: {
  db: SqlDatabase;
  clock: Clock;
  ids: IdSource;
}) {
  const { db, clock, ids } = deps;
  /** Names written to `people` by this replica, so that an unchanged name is not written again. */
  const rememberedNames = new Map<string, string>();

  async function listParticipants(conversationId: string): Promise<ParticipantRecord[]> {
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

  async function requestWithName(row: AccessRequestRow): Promise<AccessRequestRecord> {
    const [person] = await db
      .select({ name: people.name })
      .from(people)
      .where(eq(people.userId, row.userId));
    return toRequest(row, person?.name ?? null);
  }

  /** Conversations joined with one viewer's participant row and pin. */
  function selectForViewer(userId: string) {
    return db
      .select({
        conversation: conversations,
        participantCanEdit: participants.canEdit,
        starred: viewerStates.starred,
      })
      .from(conversations)
      .leftJoin(
        participants,
        and(eq(participants.conversationId, conversations.id), eq(participants.userId, userId)),
      )
      .leftJoin(
        viewerStates,
        and(eq(viewerStates.conversationId, conversations.id), eq(viewerStates.userId, userId)),
      );
  }

  function toViewerConversation(row: {
    conversation: typeof conversations.$inferSelect;
    participantCanEdit: boolean | null;
    starred: boolean | null;
  }): ViewerConversation {
    return {
      record: toRecord(row.conversation),
      participant: row.participantCanEdit === null ? null : { canEdit: row.participantCanEdit },
      starred: row.starred === true,
    };
  }

  return {
    /** A new chat; its activity starts at its creation and it has no message yet. */
    async create(input: NewConversation): Promise<ConversationRecord> {
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
    },

    /** The conversation, deleted ones included: the guard decides what a caller sees. */
    async findById(id: string): Promise<ConversationRecord | null> {
      const [row] = await db.select().from(conversations).where(eq(conversations.id, id));
      return row ? toRecord(row) : null;
    },

    /** The conversation with the viewer's participant row and pin, in one query. */
    async findForViewer(id: string, userId: string): Promise<ViewerConversation | null> {
      const [row] = await selectForViewer(userId).where(eq(conversations.id, id));
      return row ? toViewerConversation(row) : null;
    },

    /**
     * One page of the chats `userId` can open in a workspace they are a member of, newest
     * activity first, ties by id, after `after` — one query. The filter is decision 80's read
     * rule in SQL (owner; `everyone`; `invited` with a participant row); `chatAccess` decides
     * the rest for each row.
     */
    async listForViewer(input: {
      workspaceId: string;
      userId: string;
      archived: boolean | null;
      after: KeysetPosition | null;
      limit: number;
    }): Promise<ViewerConversation[]> {
      const { workspaceId, userId, archived, after, limit } = input;
      const rows = await selectForViewer(userId)
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
    },

    /**
     * Applies a PATCH's shared changes in one transaction (the row is locked, so two patches of
     * different metadata keys both land). Null when the chat is gone.
     */
    async update(id: string, changes: ConversationChanges): Promise<ConversationRecord | null> {
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
    },

    /** The viewer's own pin (decision 81); never touches the chat's shared metadata. */
    async setStarred(conversationId: string, userId: string, starred: boolean): Promise<void> {
      const now = clock.now();
      await db
        .insert(viewerStates)
        .values({ conversationId, userId, starred, updatedAt: now })
        .onConflictDoUpdate({
          target: [viewerStates.conversationId, viewerStates.userId],
          set: { starred, updatedAt: now },
        });
    },

    /** Soft delete: the row stays (its id then answers the unknown id's 404). */
    async softDelete(id: string): Promise<void> {
      const now = clock.now();
      await db
        .update(conversations)
        .set({ deletedAt: now, updatedAt: now })
        .where(and(eq(conversations.id, id), isNull(conversations.deletedAt)));
    },

    /** Keeps the name of a user seen in a session, for Access-denied bodies and requests. */
    async rememberPerson(actor: { userId: string; name: string }): Promise<void> {
      // Every message would write the same name again: a replica writes it once per change.
      if (rememberedNames.get(actor.userId) === actor.name) return;
      const now = clock.now();
      await db
        .insert(people)
        .values({ userId: actor.userId, name: actor.name, seenAt: now })
        .onConflictDoUpdate({ target: people.userId, set: { name: actor.name, seenAt: now } });
      if (rememberedNames.size >= REMEMBERED_NAMES_MAX) rememberedNames.clear();
      rememberedNames.set(actor.userId, actor.name);
    },

    /** The name last seen for a user, null when never seen. */
    async personName(userId: string): Promise<string | null> {
      const [person] = await db
        .select({ name: people.name })
        .from(people)
        .where(eq(people.userId, userId));
      return person?.name ?? null;
    },

    /**
     * Adds or updates participants in one transaction; a `private` chat becomes `invited` (an
     * invite means to share). Returns the chat's participants after the change.
     */
    async invite(
      conversationId: string,
      userIds: readonly string[],
      canEdit: boolean,
    ): Promise<ParticipantRecord[]> {
      // Inviting no one (only the owner, say) changes nothing, and an insert needs a row.
      if (userIds.length === 0) return listParticipants(conversationId);
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
          .where(
            and(eq(conversations.id, conversationId), eq(conversations.accessType, 'private')),
          );
      });
      return listParticipants(conversationId);
    },

    listParticipants,

    /** False: the user was no participant of the chat. */
    async removeParticipant(conversationId: string, userId: string): Promise<boolean> {
      const removed = await db
        .delete(participants)
        .where(
          and(eq(participants.conversationId, conversationId), eq(participants.userId, userId)),
        )
        .returning({ userId: participants.userId });
      return removed.length > 0;
    },

    /** Whether the user has a pending access request for the chat. */
    async hasPendingRequest(conversationId: string, userId: string): Promise<boolean> {
      const [row] = await db
        .select({ id: accessRequests.id })
        .from(accessRequests)
        .where(
          and(
            eq(accessRequests.conversationId, conversationId),
            eq(accessRequests.userId, userId),
            eq(accessRequests.status, 'pending'),
          ),
        );
      return row !== undefined;
    },

    /**
     * The requester's one pending request: created (`created: true`) or the one already there.
     * The partial unique index settles concurrent requests; the loser reads the winner's row.
     */
    async requestAccess(
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
        if (inserted) return { request: await requestWithName(inserted), created: true };
        const [pending] = await db
          .select()
          .from(accessRequests)
          .where(
            and(
              eq(accessRequests.conversationId, conversationId),
              eq(accessRequests.userId, userId),
              eq(accessRequests.status, 'pending'),
            ),
          );
        if (pending) return { request: await requestWithName(pending), created: false };
      }
      throw new Error('access request neither created nor found pending');
    },

    /** The chat's pending requests, oldest first, each with its requester's name. */
    async pendingRequests(conversationId: string): Promise<AccessRequestRecord[]> {
      const rows = await db
        .select({ request: accessRequests, userName: people.name })
        .from(accessRequests)
        .leftJoin(people, eq(people.userId, accessRequests.userId))
        .where(
          and(
            eq(accessRequests.conversationId, conversationId),
            eq(accessRequests.status, 'pending'),
          ),
        )
        .orderBy(asc(accessRequests.createdAt), asc(accessRequests.id));
      return rows.map((row) => toRequest(row.request, row.userName));
    },

    /** A request of this chat (a request of another chat is not found). */
    async findRequest(
      conversationId: string,
      requestId: string,
    ): Promise<AccessRequestRecord | null> {
      const [row] = await db
        .select()
        .from(accessRequests)
        .where(
          and(eq(accessRequests.id, requestId), eq(accessRequests.conversationId, conversationId)),
        );
      return row ? requestWithName(row) : null;
    },

    /**
     * Decides a pending request: a conditional update, so of two decisions exactly one applies.
     * Granting also makes the requester a participant (`canEdit`) and a `private` chat
     * `invited`, in the same transaction. Null when the request was no longer pending.
     */
    async decideRequest(
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
    },
  };
}
