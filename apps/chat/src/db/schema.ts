import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Everything the chat service persists lives in its own PostgreSQL schema; no other service reads it. */
export const chatSchema = pgSchema('chat');

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Conversations (the spec's Conversation). `metadata` holds the shared free-form keys; `starred`
 * is per viewer and lives in `viewer_states`. A deleted chat keeps its row with `deleted_at` so
 * that its id answers the same 404 as an unknown one, and its turns can still end cleanly.
 */
export const conversations = chatSchema.table(
  'conversations',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id').notNull(),
    userId: uuid('user_id').notNull(),
    projectId: uuid('project_id'),
    title: text('title'),
    source: text('source'),
    accessType: text('access_type').notNull(),
    isArchived: boolean('is_archived').notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>(),
    lastMessage: jsonb('last_message'),
    lastActivityAt: timestamptz('last_activity_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    deletedAt: timestamptz('deleted_at'),
  },
  (table) => [
    index('conversations_workspace_activity_idx').on(
      table.workspaceId,
      table.lastActivityAt.desc(),
      table.id.desc(),
    ),
    check(
      'conversations_access_type_check',
      sql`${table.accessType} in ('private', 'invited', 'everyone')`,
    ),
  ],
);

/** Members a chat was shared with, by invite or by a granted access request. */
export const participants = chatSchema.table(
  'participants',
  {
    conversationId: uuid('conversation_id').notNull(),
    userId: uuid('user_id').notNull(),
    canEdit: boolean('can_edit').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.conversationId, table.userId] }),
    index('participants_user_idx').on(table.userId),
  ],
);

/** What one viewer keeps of a chat for themselves: the pin (`metadata.starred`). */
export const viewerStates = chatSchema.table(
  'viewer_states',
  {
    conversationId: uuid('conversation_id').notNull(),
    userId: uuid('user_id').notNull(),
    starred: boolean('starred').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.conversationId, table.userId] })],
);

/** Requests to open a chat; at most one pending per requester and chat. */
export const accessRequests = chatSchema.table(
  'access_requests',
  {
    id: uuid('id').primaryKey(),
    conversationId: uuid('conversation_id').notNull(),
    userId: uuid('user_id').notNull(),
    status: text('status').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    decidedAt: timestamptz('decided_at'),
    decidedBy: uuid('decided_by'),
  },
  (table) => [
    uniqueIndex('access_requests_one_pending_idx')
      .on(table.conversationId, table.userId)
      .where(sql`${table.status} = 'pending'`),
    check(
      'access_requests_status_check',
      sql`${table.status} in ('pending', 'granted', 'declined')`,
    ),
  ],
);

/**
 * Names of the users this service has seen, refreshed from each session: the Access-denied
 * body names the chat's owner, and access requests name their requester.
 */
export const people = chatSchema.table('people', {
  userId: uuid('user_id').primaryKey(),
  name: text('name').notNull(),
  seenAt: timestamptz('seen_at').notNull(),
});

/**
 * Messages of a chat in the order they were written (`seq`). An assistant message is written
 * by one turn; `transcript` keeps the Chat Completions messages that turn added to the history
 * (assistant tool calls and tool results included), so the next turn sends the model exactly
 * what it saw.
 */
export const messages = chatSchema.table(
  'messages',
  {
    id: uuid('id').primaryKey(),
    seq: bigint('seq', { mode: 'number' }).generatedAlwaysAsIdentity(),
    conversationId: uuid('conversation_id').notNull(),
    role: text('role').notNull(),
    userId: uuid('user_id'),
    content: text('content').notNull(),
    requestId: uuid('request_id'),
    status: text('status'),
    toolCalls: jsonb('tool_calls').$type<unknown[]>().notNull(),
    transcript: jsonb('transcript').$type<unknown[]>(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('messages_conversation_seq_idx').on(table.conversationId, table.seq),
    check('messages_role_check', sql`${table.role} in ('user', 'assistant')`),
  ],
);

/**
 * Turns: one assistant reply each, owned by the replica that runs it (`owner`). The owner
 * renews `heartbeat_at`; a running turn whose heartbeat is older than the lease is ended as
 * failed by any replica, so a turn never stays running after its replica died.
 */
export const turns = chatSchema.table(
  'turns',
  {
    requestId: uuid('request_id').primaryKey(),
    conversationId: uuid('conversation_id').notNull(),
    workspaceId: uuid('workspace_id').notNull(),
    userId: uuid('user_id').notNull(),
    messageId: uuid('message_id').notNull(),
    status: text('status').notNull(),
    error: text('error'),
    owner: text('owner').notNull(),
    heartbeatAt: timestamptz('heartbeat_at').notNull(),
    startedAt: timestamptz('started_at').notNull(),
    endedAt: timestamptz('ended_at'),
  },
  (table) => [
    index('turns_running_heartbeat_idx')
      .on(table.heartbeatAt)
      .where(sql`${table.status} = 'running'`),
    index('turns_conversation_idx').on(table.conversationId),
    check(
      'turns_status_check',
      sql`${table.status} in ('running', 'completed', 'stopped', 'failed')`,
    ),
  ],
);

/** The events of a turn, in order: what its Server-Sent Events stream replays from any replica. */
export const turnEvents = chatSchema.table(
  'turn_events',
  {
    requestId: uuid('request_id').notNull(),
    seq: integer('seq').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.requestId, table.seq] })],
);
