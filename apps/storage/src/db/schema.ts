import { sql } from 'drizzle-orm';
import {
  bigserial,
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

/**
 * Bearer tokens a person issued to a browser extension (decision 128). The token itself is a
 * signed JWT that is never stored; its `jti` is this row's id, and revoking sets `revoked_at`.
 */
export const extensionTokens = storageSchema.table(
  'extension_tokens',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id),
    name: text('name').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (table) => [index('extension_tokens_user_id_idx').on(table.userId, table.createdAt)],
);

/** A table of a workspace: its columns are `table_properties`, its rows `table_rows`. */
export const dataTables = storageSchema.table(
  'tables',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('tables_workspace_id_idx').on(table.workspaceId),
    // The workspace's list, newest first, keyset-paged.
    index('tables_workspace_created_idx').on(
      table.workspaceId,
      table.createdAt.desc(),
      table.id.desc(),
    ),
  ],
);

/** A column; `type` and the shape of `config` are decision 60's. */
export const tableProperties = storageSchema.table(
  'table_properties',
  {
    id: uuid('id').primaryKey(),
    tableId: uuid('table_id')
      .notNull()
      .references(() => dataTables.id),
    name: text('name').notNull(),
    type: text('type').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull(),
    position: integer('position').notNull(),
    isHidden: boolean('is_hidden').notNull().default(false),
  },
  (table) => [uniqueIndex('table_properties_position_idx').on(table.tableId, table.position)],
);

/**
 * A row: its cells keyed by property id, in one jsonb so that a row is written whole (a split
 * never leaves it half-written). `seq` orders rows and is the cursor of their pages.
 */
export const tableRows = storageSchema.table(
  'table_rows',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().unique(),
    tableId: uuid('table_id')
      .notNull()
      .references(() => dataTables.id),
    cells: jsonb('cells').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [index('table_rows_table_seq_idx').on(table.tableId, table.seq)],
);

export const contacts = storageSchema.table(
  'contacts',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    email: text('email'),
    companyId: text('company_id'),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('contacts_workspace_id_idx').on(table.workspaceId),
    // The workspace's list, newest first, keyset-paged.
    index('contacts_workspace_created_idx').on(
      table.workspaceId,
      table.createdAt.desc(),
      table.id.desc(),
    ),
  ],
);

/**
 * Notes of a contact. `seq` grows with every insert: pages are read newest first by `seq`, so a
 * note added while a client pages lands before its cursor and is never listed twice (decision 62).
 */
export const contactNotes = storageSchema.table(
  'contact_notes',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().unique(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => contacts.id),
    companyId: text('company_id'),
    title: text('title').notNull(),
    content: text('content').notNull(),
    tags: text('tags').array().notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [index('contact_notes_contact_seq_idx').on(table.contactId, table.seq)],
);

export const tasks = storageSchema.table(
  'tasks',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    title: text('title').notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('tasks_workspace_id_idx').on(table.workspaceId),
    // The workspace's list, newest first, keyset-paged.
    index('tasks_workspace_created_idx').on(
      table.workspaceId,
      table.createdAt.desc(),
      table.id.desc(),
    ),
  ],
);

/**
 * A file uploaded for a task's comments (spec endpoint 8). `name` is the generated file name of
 * its address `/files/task-comments/{workspace_id}/{task_id}/{name}`; the bytes are the object
 * `object_name` of the task-files bucket.
 */
export const taskAttachments = storageSchema.table(
  'task_attachments',
  {
    id: uuid('id').primaryKey(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id),
    name: text('name').notNull(),
    fileName: text('file_name').notNull(),
    type: text('type').notNull(),
    size: integer('size').notNull(),
    objectName: text('object_name').notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [uniqueIndex('task_attachments_address_idx').on(table.taskId, table.name)],
);

export const taskComments = storageSchema.table(
  'task_comments',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull().unique(),
    workspaceId: uuid('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    taskId: uuid('task_id')
      .notNull()
      .references(() => tasks.id),
    body: text('body').notNull(),
    attachments: jsonb('attachments')
      .$type<{ url: string; name: string; type: string; size: number }[]>()
      .notNull(),
    createdBy: uuid('created_by')
      .notNull()
      .references(() => users.id),
    createdAt: timestamptz('created_at').notNull(),
    /** When its author last changed its text; null until then. */
    editedAt: timestamptz('edited_at'),
  },
  (table) => [index('task_comments_task_seq_idx').on(table.taskId, table.seq)],
);
