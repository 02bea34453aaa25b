import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './common';
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

export const CreateTableBody = z.object({
  workspaceId: z.uuid(),
  name: z.string().trim().min(1).max(200),
});
export type CreateTableBody = z.infer<typeof CreateTableBody>;
export const TableResponse = z.object({ table: Table, properties: z.array(TableProperty) });

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
export const RowResponse = z.object({ row: TableRow });

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
export const CreateNoteBody = z.object({
  title: z.string().trim().min(1).max(300),
  content: z.string().max(100_000),
  tags: z
    .array(Tag)
    .max(20)
    .default([])
    .transform((tags) => [...new Set(tags)]),
});
export type CreateNoteBody = z.infer<typeof CreateNoteBody>;
export const NoteResponse = z.object({ note: ContactNote });

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

// ---------------------------------------------------------------- routes

export const workspaceDataRoutes = defineRoutes([
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
    request: { params: IdParams, body: SplitNameBody },
    responses: {
      200: { description: 'Split', schema: SplitNameResponse },
      ...sessionErrorResponses,
    },
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
