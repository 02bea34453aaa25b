import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';

/** Everything storage persists lives in its own PostgreSQL schema; no other service reads it. */
export const storageSchema = pgSchema('storage');

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * People known to the platform. `subject` is the identity provider's subject; a user added to a
 * workspace by email before ever signing in holds the placeholder subject `email:<email>` until
 * their first session claims the row. Emails are stored lower-cased.
 */
export const users = storageSchema.table(
  'users',
  {
    id: uuid('id').primaryKey(),
    subject: text('subject').notNull().unique(),
    email: text('email').notNull(),
    name: text('name').notNull(),
    approvalTasksEmail: boolean('approval_tasks_email').notNull().default(true),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('users_email_idx').on(table.email)],
);

/** A workspace is soft-deleted: `deleted_at` set, every route then answers 404 and webhooks 410. */
export const workspaces = storageSchema.table('workspaces', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  deletedAt: timestamptz('deleted_at'),
  emailOnApproval: boolean('email_on_approval').notNull().default(false),
});

export const members = storageSchema.table(
  'members',
  {
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    role: text('role', { enum: ['owner', 'member'] }).notNull(),
    joinedAt: timestamptz('joined_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.workspaceId, table.userId] }),
    index('members_user_id_idx').on(table.userId),
    check('members_role_check', sql`${table.role} in ('owner', 'member')`),
  ],
);

/** Workspace API keys: only the hash of the key is kept; `prefix` lets a user recognise a key. */
export const apiKeys = storageSchema.table(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull().unique(),
    prefix: text('prefix').notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
  },
  (table) => [index('api_keys_workspace_id_idx').on(table.workspaceId)],
);
