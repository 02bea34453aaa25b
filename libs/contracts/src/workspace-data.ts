import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

/** `:id` of a table, contact or task: a uuid, checked at the edge. */
export const IdParams = z.object({ id: z.uuid() });
export type IdParams = z.infer<typeof IdParams>;

// ---------------------------------------------------------------- tables

/** The property (column) types a table supports (decision 60). */
export const PROPERTY_TYPES = [
  'text',
  'number',
  'checkbox',
  'select',
  'multi_select',
  'date',
  'email',
  'url',
  'phone',
] as const;
export const PropertyType = z.enum(PROPERTY_TYPES);
export type PropertyType = z.infer<typeof PropertyType>;

const SelectOption = z.object({
  id: z.string().trim().min(1).max(64),
  name: z.string().trim().min(1).max(100),
  color: z.string().max(32).optional(),
});

/** `config` of each type: strict, so a misspelt key is refused rather than silently kept. */
export const PROPERTY_CONFIGS = {
  text: z.strictObject({}),
  number: z.strictObject({
    format: z.enum(['plain', 'currency', 'percent']).optional(),
    decimals: z.number().int().min(0).max(10).optional(),
  }),
  checkbox: z.strictObject({}),
  select: z.strictObject({ options: z.array(SelectOption).max(200) }),
  multi_select: z.strictObject({ options: z.array(SelectOption).max(200) }),
  date: z.strictObject({ includeTime: z.boolean().optional() }),
  email: z.strictObject({}),
  url: z.strictObject({}),
  phone: z.strictObject({}),
} as const satisfies Record<PropertyType, z.ZodType>;

/** The spec's Table property record. */
export const TableProperty = z.object({
  id: z.uuid(),
  table_id: z.string(),
  name: z.string(),
  type: PropertyType,
  config: z.record(z.string(), z.unknown()),
  position: z.number().int(),
  is_hidden: z.boolean(),
});
export type TableProperty = z.infer<typeof TableProperty>;

export const Table = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Table = z.infer<typeof Table>;

const TableName = z.string().trim().min(1).max(200);
export const CreateTableBody = z.object({ workspaceId: z.uuid(), name: TableName });
export type CreateTableBody = z.infer<typeof CreateTableBody>;
export const UpdateTableBody = z.strictObject({ name: TableName });
export const TableResponse = z.object({ table: Table, properties: z.array(TableProperty) });

/** A body that changes something: at least one of its optional fields is given. */
function someField<Shape extends z.ZodRawShape>(shape: Shape) {
  return z
    .strictObject(shape)
    .refine((body) => Object.values(body).some((value) => value !== undefined), {
      message: `give at least one of ${Object.keys(shape).join(', ')}`,
    });
}

export const CreatePropertyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    type: PropertyType,
    config: z.record(z.string(), z.unknown()).optional(),
    is_hidden: z.boolean().optional(),
  })
  .superRefine((body, context) => {
    const parsed = PROPERTY_CONFIGS[body.type].safeParse(body.config ?? defaultConfigOf(body.type));
    for (const issue of parsed.error?.issues ?? []) {
      context.addIssue({
        code: 'custom',
        message: issue.message,
        path: ['config', ...issue.path.map(String)],
      });
    }
  });
export type CreatePropertyBody = z.infer<typeof CreatePropertyBody>;
export const PropertyResponse = z.object({ property: TableProperty });

/**
 * A property's new name, visibility or config; its type stays (cells were checked against it).
 * The config is checked against the type by the handler, which knows the type.
 */
export const UpdatePropertyBody = someField({
  name: z.string().trim().min(1).max(200).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  is_hidden: z.boolean().optional(),
});
export type UpdatePropertyBody = z.infer<typeof UpdatePropertyBody>;
export const PropertyParams = z.object({ id: z.uuid(), propertyId: z.uuid() });

/** The config a property gets when none is sent. */
export function defaultConfigOf(type: PropertyType): Record<string, unknown> {
  return type === 'select' || type === 'multi_select' ? { options: [] } : {};
}

/** A cell value as stored: the property type decides which of these it may be (decision 60). */
export const CellValue = z.union([
  z.string().max(10_000),
  z.number(),
  z.boolean(),
  z.array(z.string().max(200)).max(200),
  z.null(),
]);
export const Cells = z.record(z.uuid(), CellValue);
export type Cells = z.infer<typeof Cells>;

export const TableRow = z.object({
  id: z.uuid(),
  table_id: z.uuid(),
  cells: z.record(z.string(), z.unknown()),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type TableRow = z.infer<typeof TableRow>;
export const CreateRowBody = z.object({ cells: Cells.default({}) });
/** The cells to change; the others keep their values, and `null` empties a cell. */
export const UpdateRowBody = z.strictObject({ cells: Cells });
export const RowResponse = z.object({ row: TableRow });
export const RowParams = z.object({ id: z.uuid(), rowId: z.uuid() });

/**
 * A page size in a query string. It stays a string on the way through the gateway (the bus
 * carries query values as strings); the service reads it with `pageLimit`.
 */
function limitParam(max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,4}$/, 'limit must be a whole number')
    .refine((value) => Number(value) >= 1 && Number(value) <= max, `limit must be 1 to ${max}`)
    .optional();
}

/** The page size a validated `limit` asks for, or the default. */
export function pageLimit(limit: unknown, page: { default: number }): number {
  return typeof limit === 'string' ? Number(limit) : page.default;
}

/** Rows pages: oldest first; `limit` 1 to 500, default 100 (decision 61). */
export const ROWS_PAGE = { default: 100, max: 500 } as const;
export const ListRowsQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: limitParam(ROWS_PAGE.max),
});
export const RowsPage = z.object({ rows: z.array(TableRow), nextCursor: z.string().nullable() });

/** Spec endpoint 5. */
export const SplitNameBody = z
  .object({ sourcePropertyId: z.uuid(), targetPropertyId: z.uuid() })
  .refine((body) => body.sourcePropertyId !== body.targetPropertyId, {
    message: 'sourcePropertyId and targetPropertyId must be different properties',
    path: ['targetPropertyId'],
  });
export type SplitNameBody = z.infer<typeof SplitNameBody>;
export const SplitNameResponse = z.object({
  properties: z.array(TableProperty),
  targetPropertyUpdated: z.boolean(),
  cellsProcessed: z.number().int().nonnegative(),
  cellsWritten: z.number().int().nonnegative(),
});
export type SplitNameResponse = z.infer<typeof SplitNameResponse>;

// ---------------------------------------------------------------- contacts and notes

export const Contact = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  name: z.string(),
  email: z.string().nullable(),
  company_id: z.string().nullable(),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Contact = z.infer<typeof Contact>;
export const CreateContactBody = z.object({
  workspaceId: z.uuid(),
  name: z.string().trim().min(1).max(200),
  email: z.email().max(320).optional(),
  company_id: z.string().trim().min(1).max(200).optional(),
});
export type CreateContactBody = z.infer<typeof CreateContactBody>;
/** `null` clears the email or the company. */
export const UpdateContactBody = someField({
  name: z.string().trim().min(1).max(200).optional(),
  email: z.email().max(320).nullable().optional(),
  company_id: z.string().trim().min(1).max(200).nullable().optional(),
});
export type UpdateContactBody = z.infer<typeof UpdateContactBody>;
export const ContactResponse = z.object({ contact: Contact });

/** The spec's Contact note record; `company_id` is null for a contact without a company. */
export const ContactNote = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  contact_id: z.string(),
  company_id: z.string().nullable(),
  title: z.string(),
  content: z.string(),
  tags: z.array(z.string()),
  created_by: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type ContactNote = z.infer<typeof ContactNote>;
const Tag = z.string().trim().min(1).max(50);
const NoteTitle = z.string().trim().min(1).max(300);
const NoteContent = z.string().max(100_000);
const NoteTags = z
  .array(Tag)
  .max(20)
  .transform((tags) => [...new Set(tags)]);
export const CreateNoteBody = z.object({
  title: NoteTitle,
  content: NoteContent,
  tags: NoteTags.default([]),
});
export type CreateNoteBody = z.infer<typeof CreateNoteBody>;
export const UpdateNoteBody = someField({
  title: NoteTitle.optional(),
  content: NoteContent.optional(),
  tags: NoteTags.optional(),
});
export type UpdateNoteBody = z.infer<typeof UpdateNoteBody>;
export const NoteResponse = z.object({ note: ContactNote });
export const NoteParams = z.object({ id: z.uuid(), noteId: z.uuid() });

/** Notes pages (spec endpoint 10): newest first, `limit` 1 to 100, default 20 (decision 62). */
export const NOTES_PAGE = { default: 20, max: 100 } as const;
export const ListNotesQuery = z.object({
  cursor: z.string().max(200).optional(),
  limit: limitParam(NOTES_PAGE.max),
  /** Repeatable: a note is listed when it carries every tag given. */
  tag: z.union([Tag, z.array(Tag).max(20)]).optional(),
});
export type ListNotesQuery = z.infer<typeof ListNotesQuery>;
/** `nextCursor` is null on the last page. */
export const NotesPage = z.object({
  notes: z.array(ContactNote),
  nextCursor: z.string().nullable(),
});

/**
 * Lists of a workspace's tables, tasks and contacts: newest first, keyset-paged; `limit` 1 to
 * 100 (default 50).
 */
export const WORKSPACE_LIST_PAGE = { default: 50, max: 100 } as const;
export const WorkspaceListQuery = z.object({
  workspaceId: z.uuid(),
  cursor: z.string().max(300).optional(),
  limit: limitParam(WORKSPACE_LIST_PAGE.max),
});
export const TablesPage = z.object({ tables: z.array(Table), nextCursor: z.string().nullable() });
export const ContactsPage = z.object({
  contacts: z.array(Contact),
  nextCursor: z.string().nullable(),
});

// ---------------------------------------------------------------- routes

export const workspaceDataRoutes = defineRoutes([
  {
    operationId: 'list_tables',
    summary: "A workspace's tables, newest first, cursor-paged (members)",
    method: 'GET',
    path: '/tables',
    owner: 'storage',
    subject: 'storage.api.list_tables.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: WorkspaceListQuery },
    responses: { 200: { description: 'A page', schema: TablesPage }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_table',
    summary: 'Create a table in a workspace (members)',
    method: 'POST',
    path: '/tables',
    owner: 'storage',
    subject: 'storage.api.create_table.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateTableBody },
    responses: { 201: { description: 'Created', schema: TableResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'get_table',
    summary: 'A table with its properties (members of its workspace)',
    method: 'GET',
    path: '/tables/:id',
    owner: 'storage',
    subject: 'storage.api.get_table.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: {
      200: { description: 'The table', schema: TableResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'update_table',
    summary: 'Rename a table (members of its workspace)',
    method: 'PATCH',
    path: '/tables/:id',
    owner: 'storage',
    subject: 'storage.api.update_table.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: UpdateTableBody },
    responses: {
      200: { description: 'The table', schema: TableResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_table',
    summary: 'Delete a table with its properties and rows (members of its workspace)',
    method: 'DELETE',
    path: '/tables/:id',
    owner: 'storage',
    subject: 'storage.api.delete_table.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_table_property',
    summary: 'Rename, hide or show a property, or change its config (not its type)',
    method: 'PATCH',
    path: '/tables/:id/properties/:propertyId',
    owner: 'storage',
    subject: 'storage.api.update_table_property.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: PropertyParams, body: UpdatePropertyBody },
    responses: {
      200: { description: 'The property', schema: PropertyResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_table_property',
    summary: 'Delete a property and its cells in every row',
    method: 'DELETE',
    path: '/tables/:id/properties/:propertyId',
    owner: 'storage',
    subject: 'storage.api.delete_table_property.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: PropertyParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_table_row',
    summary: 'Change some cells of a row; null empties a cell',
    method: 'PATCH',
    path: '/tables/:id/rows/:rowId',
    owner: 'storage',
    subject: 'storage.api.update_table_row.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: RowParams, body: UpdateRowBody },
    responses: {
      200: { description: 'The row', schema: RowResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_table_row',
    summary: 'Delete a row',
    method: 'DELETE',
    path: '/tables/:id/rows/:rowId',
    owner: 'storage',
    subject: 'storage.api.delete_table_row.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: RowParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_table_property',
    summary: 'Add a property (column) to a table',
    method: 'POST',
    path: '/tables/:id/properties',
    owner: 'storage',
    subject: 'storage.api.create_table_property.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: CreatePropertyBody },
    responses: {
      201: { description: 'Created', schema: PropertyResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'create_table_row',
    summary: 'Add a row; each cell keyed by property id and checked against its type',
    method: 'POST',
    path: '/tables/:id/rows',
    owner: 'storage',
    subject: 'storage.api.create_table_row.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: CreateRowBody },
    responses: { 201: { description: 'Created', schema: RowResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'list_table_rows',
    summary: 'Rows of a table, oldest first, cursor-paged',
    method: 'GET',
    path: '/tables/:id/rows',
    owner: 'storage',
    subject: 'storage.api.list_table_rows.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams, query: ListRowsQuery },
    responses: { 200: { description: 'A page', schema: RowsPage }, ...sessionErrorResponses },
  },
  {
    operationId: 'split_name',
    summary: 'Split the full names of a property into first and last (spec endpoint 5)',
    method: 'POST',
    path: '/tables/:id/split-name',
    owner: 'storage',
    subject: 'storage.api.split_name.v1',
    auth: 'session',
    bodyKind: 'json',
    // A split reads and writes the whole table: 100 000 rows take seconds (bench:data).
    timeoutMs: 300_000,
    request: { params: IdParams, body: SplitNameBody },
    responses: {
      200: { description: 'Split', schema: SplitNameResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'list_contacts',
    summary: "A workspace's contacts, newest first, cursor-paged (members)",
    method: 'GET',
    path: '/contacts',
    owner: 'storage',
    subject: 'storage.api.list_contacts.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: WorkspaceListQuery },
    responses: { 200: { description: 'A page', schema: ContactsPage }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_contact',
    summary: 'Create a contact in a workspace (members)',
    method: 'POST',
    path: '/contacts',
    owner: 'storage',
    subject: 'storage.api.create_contact.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateContactBody },
    responses: {
      201: { description: 'Created', schema: ContactResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_contact',
    summary: 'A contact (members of its workspace)',
    method: 'GET',
    path: '/contacts/:id',
    owner: 'storage',
    subject: 'storage.api.get_contact.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: {
      200: { description: 'The contact', schema: ContactResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'update_contact',
    summary: 'Change a contact; its notes follow a change of company',
    method: 'PATCH',
    path: '/contacts/:id',
    owner: 'storage',
    subject: 'storage.api.update_contact.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: UpdateContactBody },
    responses: {
      200: { description: 'The contact', schema: ContactResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_contact',
    summary: 'Delete a contact with its notes (members of its workspace)',
    method: 'DELETE',
    path: '/contacts/:id',
    owner: 'storage',
    subject: 'storage.api.delete_contact.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_contact_note',
    summary: 'Change a note (its author only)',
    method: 'PATCH',
    path: '/contacts/:id/notes/:noteId',
    owner: 'storage',
    subject: 'storage.api.update_contact_note.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: NoteParams, body: UpdateNoteBody },
    responses: {
      200: { description: 'The note', schema: NoteResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_contact_note',
    summary: 'Delete a note (its author or an owner of the workspace)',
    method: 'DELETE',
    path: '/contacts/:id/notes/:noteId',
    owner: 'storage',
    subject: 'storage.api.delete_contact_note.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: NoteParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_contact_note',
    summary: 'Add a note to a contact',
    method: 'POST',
    path: '/contacts/:id/notes',
    owner: 'storage',
    subject: 'storage.api.create_contact_note.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: CreateNoteBody },
    responses: { 201: { description: 'Created', schema: NoteResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'list_contact_notes',
    summary: 'Notes of a contact, newest first, cursor-paged, by tag (spec endpoint 10)',
    method: 'GET',
    path: '/contacts/:id/notes',
    owner: 'storage',
    subject: 'storage.api.list_contact_notes.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams, query: ListNotesQuery },
    responses: {
      200: { description: 'A page', schema: NotesPage },
      400: {
        description: 'VALIDATION_ERROR (also a cursor not issued here)',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
] as const);

// ---------------------------------------------------------------- tasks, comments, attachments

export const Task = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  title: z.string(),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Task = z.infer<typeof Task>;
const TaskTitle = z.string().trim().min(1).max(500);
export const CreateTaskBody = z.object({ workspaceId: z.uuid(), title: TaskTitle });
export const UpdateTaskBody = z.strictObject({ title: TaskTitle });
export const TaskResponse = z.object({ task: Task });
export const TasksPage = z.object({ tasks: z.array(Task), nextCursor: z.string().nullable() });

/** The spec's Attachment record; `url` is the gateway path that serves the file to members. */
export const Attachment = z.object({
  url: z.string().max(500),
  name: z.string().max(255),
  type: z.string().max(200),
  size: z.number().int().nonnegative(),
});
export type Attachment = z.infer<typeof Attachment>;

export const TaskComment = z.object({
  id: z.uuid(),
  task_id: z.uuid(),
  workspace_id: z.uuid(),
  body: z.string(),
  attachments: z.array(Attachment),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  /** When its author last changed its text; null for a comment never edited. */
  edited_at: z.iso.datetime().nullable(),
});
export type TaskComment = z.infer<typeof TaskComment>;
const CommentText = z.string().max(20_000);
export const CreateCommentBody = z.object({
  body: CommentText,
  attachments: z.array(Attachment).max(20).default([]),
});
/** Only the text changes: the attachments a comment was posted with stay. */
export const UpdateCommentBody = z.strictObject({ body: CommentText });
export const CommentResponse = z.object({ comment: TaskComment });
export const CommentsResponse = z.object({ comments: z.array(TaskComment) });
export const TaskIdParams = z.object({ taskId: z.uuid() });
export const CommentParams = z.object({ taskId: z.uuid(), commentId: z.uuid() });

/** Spec endpoint 8's limit: 10 MB, counted as 10 × 1024 × 1024 bytes (decision 64). */
export const ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;
/** Object bucket of task comment attachments. */
export const TASK_FILES_BUCKET = 'task-files';

/** The kinds endpoint 8 takes, as detected from the bytes (decision 64). */
export const ATTACHMENT_TYPES = [
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'image/svg+xml',
  'application/pdf',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'text/plain',
  'text/csv',
] as const;
export const AttachmentType = z.enum(ATTACHMENT_TYPES);
export type AttachmentType = z.infer<typeof AttachmentType>;

/** Where the gateway streams an upload, as the owner of the route answered before it started. */
export const UploadTarget = z.object({
  bucket: z.string(),
  /** Object name; also the logical location `task-comments/{workspaceId}/{taskId}/{name}`. */
  objectName: z.string(),
});
export type UploadTarget = z.infer<typeof UploadTarget>;
/** `storage.api.prepare_task_attachment.v1`: may the actor upload to this task, and where. */
/** The uploading person travels in the request's signed assertion, not here. */
export const PrepareUploadRequest = z.object({
  params: z.record(z.string(), z.string()),
});

export type PrepareUploadRequest = z.infer<typeof PrepareUploadRequest>;
export const TASK_FILE_SUBJECTS = {
  prepareUpload: 'storage.api.prepare_task_attachment.v1',
} as const;

/** Asked by the gateway before a task attachment's first byte is stored (one of BUS_APIS). */
export const PREPARE_TASK_ATTACHMENT = {
  subject: TASK_FILE_SUBJECTS.prepareUpload,
  request: PrepareUploadRequest,
  reply: UploadTarget,
};

/** What the gateway stored, sent as the JSON body of the multipart route's request. */
export const StoredUpload = z.object({
  bucket: z.string(),
  objectName: z.string(),
  fileName: z.string().max(255),
  type: AttachmentType,
  size: z.number().int().nonnegative(),
  fields: z.record(z.string(), z.string()),
});
export type StoredUpload = z.infer<typeof StoredUpload>;

/** A download: the object the gateway streams, and how it names it. */
export const StoredFile = z.object({
  bucket: z.string(),
  objectName: z.string(),
  fileName: z.string(),
  type: z.string(),
  size: z.number().int().nonnegative(),
});
export type StoredFile = z.infer<typeof StoredFile>;
export const TaskFileParams = z.object({
  workspaceId: z.uuid(),
  taskId: z.uuid(),
  name: z.string().regex(/^[0-9a-f-]{36}\.[a-z0-9]{1,5}$/u, 'not a file name issued here'),
});

export const taskRoutes = defineRoutes([
  {
    operationId: 'list_tasks',
    summary: "A workspace's tasks, newest first, cursor-paged (members)",
    method: 'GET',
    path: '/tasks',
    owner: 'storage',
    subject: 'storage.api.list_tasks.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: WorkspaceListQuery },
    responses: { 200: { description: 'A page', schema: TasksPage }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_task',
    summary: 'Create a task in a workspace (members)',
    method: 'POST',
    path: '/tasks',
    owner: 'storage',
    subject: 'storage.api.create_task.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { body: CreateTaskBody },
    responses: { 201: { description: 'Created', schema: TaskResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'get_task',
    summary: 'A task (members of its workspace)',
    method: 'GET',
    path: '/tasks/:id',
    owner: 'storage',
    subject: 'storage.api.get_task.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: { 200: { description: 'The task', schema: TaskResponse }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_task',
    summary: 'Rename a task (members of its workspace)',
    method: 'PATCH',
    path: '/tasks/:id',
    owner: 'storage',
    subject: 'storage.api.update_task.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: IdParams, body: UpdateTaskBody },
    responses: {
      200: { description: 'The task', schema: TaskResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_task',
    summary: 'Delete a task with its comments and their files (members of its workspace)',
    method: 'DELETE',
    path: '/tasks/:id',
    owner: 'storage',
    subject: 'storage.api.delete_task.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: IdParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'update_task_comment',
    summary: 'Change the text of a comment (its author only)',
    method: 'PATCH',
    path: '/tasks/:taskId/comments/:commentId',
    owner: 'storage',
    subject: 'storage.api.update_task_comment.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: CommentParams, body: UpdateCommentBody },
    responses: {
      200: { description: 'The comment', schema: CommentResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'delete_task_comment',
    summary: 'Delete a comment and the files only it holds (its author or an owner)',
    method: 'DELETE',
    path: '/tasks/:taskId/comments/:commentId',
    owner: 'storage',
    subject: 'storage.api.delete_task_comment.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: CommentParams },
    responses: { 204: { description: 'Deleted' }, ...sessionErrorResponses },
  },
  {
    operationId: 'create_task_comment',
    summary: 'Comment on a task, with attachments uploaded to it before',
    method: 'POST',
    path: '/tasks/:taskId/comments',
    owner: 'storage',
    subject: 'storage.api.create_task_comment.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: TaskIdParams, body: CreateCommentBody },
    responses: {
      201: { description: 'Created', schema: CommentResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'list_task_comments',
    summary: 'Comments of a task, oldest first',
    method: 'GET',
    path: '/tasks/:taskId/comments',
    owner: 'storage',
    subject: 'storage.api.list_task_comments.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: TaskIdParams },
    responses: {
      200: { description: 'The comments', schema: CommentsResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'upload_task_comment_attachment',
    summary: 'Upload a task comment attachment (spec endpoint 8): multipart file and workspaceId',
    method: 'POST',
    path: '/tasks/:taskId/comments/attachments',
    owner: 'storage',
    subject: 'storage.api.upload_task_comment_attachment.v1',
    auth: 'session',
    bodyKind: 'multipart',
    request: { params: TaskIdParams },
    upload: {
      fileField: 'file',
      maxBytes: ATTACHMENT_MAX_BYTES,
      prepare: PREPARE_TASK_ATTACHMENT,
    },
    responses: {
      200: { description: 'The Attachment', schema: Attachment },
      413: { description: 'PAYLOAD_TOO_LARGE: over 10 MB', schema: ErrorBodySchema },
      415: { description: 'UNSUPPORTED_MEDIA_TYPE: not an allowed kind', schema: ErrorBodySchema },
      429: {
        description: 'RATE_LIMITED: too many uploads a minute (see Retry-After)',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'download_task_file',
    summary: 'A task comment attachment, to members of its workspace only',
    method: 'GET',
    path: '/files/task-comments/:workspaceId/:taskId/:name',
    owner: 'storage',
    subject: 'storage.api.download_task_file.v1',
    auth: 'session',
    bodyKind: 'none',
    responseKind: 'file',
    request: { params: TaskFileParams },
    responses: {
      200: { description: 'The file, as an attachment', contentType: 'application/octet-stream' },
      ...sessionErrorResponses,
    },
  },
] as const);
