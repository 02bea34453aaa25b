import type { z } from 'zod';
import { and, eq } from 'drizzle-orm';
import { AccessType, AccessRequestStatus } from '@wap/contracts';
import type { Clock, IdSource, SqlDatabase } from '@wap/platform';
import { type accessRequests, conversations, participants, viewerStates } from '../db/schema';

/** What the conversation store's functions work with. */
export interface ConversationStore {
  db: SqlDatabase;
  clock: Clock;
  ids: IdSource;
}

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

type ConversationRow = typeof conversations.$inferSelect;
export type AccessRequestRow = typeof accessRequests.$inferSelect;

export function toRecord(row: ConversationRow): ConversationRecord {
  return { ...row, accessType: AccessType.parse(row.accessType) };
}

export function toRequest(row: AccessRequestRow, userName: string | null): AccessRequestRecord {
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

/** Conversations joined with one viewer's participant row and pin. */
export function selectForViewer(db: SqlDatabase, userId: string) {
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

export function toViewerConversation(row: {
  conversation: ConversationRow;
  participantCanEdit: boolean | null;
  starred: boolean | null;
}): ViewerConversation {
  return {
    record: toRecord(row.conversation),
    participant: row.participantCanEdit === null ? null : { canEdit: row.participantCanEdit },
    starred: row.starred === true,
  };
}
