import {
  AppError,
  CreatePropertyBody,
  CreateRowBody,
  CreateTableBody,
  defaultConfigOf,
  IdParams,
  ListRowsQuery,
  pageLimit,
  PROPERTY_CONFIGS,
  PropertyParams,
  ROWS_PAGE,
  RowParams,
  SplitNameBody,
  UpdatePropertyBody,
  UpdateRowBody,
  UpdateTableBody,
  type Actor,
  type PropertyType,
  type SplitNameResponse,
  type TableProperty,
  type TableRow,
} from '@wap/contracts';
import {
  actorOf,
  decodeSeqCursor,
  encodeSeqCursor,
  parseRequestPart,
  type RouteHandler,
} from '@wap/bus-protocol';
import { requireMember, requireVisible, type WorkspaceStanding } from '../directory/access';
import { workspaceListHandler } from '../http/pages';
import { checkCells } from './cells';
import type { PropertyRecord, RowRecord, TableRecord, TablesRepository } from './repository';
import { planRowSplit } from './split-name';

const TABLES_LIST = 'tables';

export type TableOperation =
  | 'list_tables'
  | 'create_table'
  | 'get_table'
  | 'update_table'
  | 'delete_table'
  | 'create_table_property'
  | 'update_table_property'
  | 'delete_table_property'
  | 'create_table_row'
  | 'update_table_row'
  | 'delete_table_row'
  | 'list_table_rows'
  | 'split_name';

export interface TablesHandlersDeps {
  repository: TablesRepository;
  standingOf(workspaceId: string, userId: string): Promise<WorkspaceStanding>;
  /** Rows read and written per transaction by split-name: bounds its memory (decision 63). */
  splitBatchSize: number;
}

const TABLE_NOT_FOUND = 'Table not found';
const PROPERTY_NOT_FOUND = 'Property not found in this table';
const ROW_NOT_FOUND = 'Row not found in this table';
const ROWS_CURSOR = 'rows';

function tableBody(table: TableRecord) {
  return {
    id: table.id,
    workspace_id: table.workspaceId,
    name: table.name,
    created_by: table.createdBy,
    created_at: table.createdAt.toISOString(),
    updated_at: table.updatedAt.toISOString(),
  };
}

function propertyBody(property: PropertyRecord): TableProperty {
  return {
    id: property.id,
    table_id: property.tableId,
    name: property.name,
    type: property.type,
    config: property.config,
    position: property.position,
    is_hidden: property.isHidden,
  };
}

/** The config checked against the property's type; issues read as the gateway's own. */
function configOf(type: PropertyType, config: Record<string, unknown>): Record<string, unknown> {
  const parsed = PROPERTY_CONFIGS[type].safeParse(config);
  if (parsed.success) return parsed.data;
  throw new AppError('VALIDATION_ERROR', 'Invalid request body', {
    details: parsed.error.issues.map((issue) => ({
      path: ['body', 'config', ...issue.path.map(String)].join('.'),
      message: issue.message,
      code: issue.code,
    })),
  });
}

export function rowBody(row: RowRecord): TableRow {
  return {
    id: row.id,
    table_id: row.tableId,
    cells: row.cells,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/* eslint-disable-next-line max-lines-per-function --
  route handlers: one short handler per route over the dependencies they share */
export function createTablesHandlers(
  deps: TablesHandlersDeps,
): Record<TableOperation, RouteHandler> {
  const { repository, standingOf } = deps;

  /** The table if the caller is a member of its workspace; else the one 404 for every case. */
  async function visibleTable(tableId: string, actor: Actor): Promise<TableRecord> {
    const table = await repository.findTable(tableId);
    const standing = table ? await standingOf(table.workspaceId, actor.userId) : null;
    return requireVisible(table, standing, TABLE_NOT_FOUND);
  }

  async function splitName(table: TableRecord, body: SplitNameBody): Promise<SplitNameResponse> {
    const properties = await repository.propertiesOf(table.id);
    const source = properties.find((property) => property.id === body.sourcePropertyId);
    const target = properties.find((property) => property.id === body.targetPropertyId);
    if (!source) throw new AppError('NOT_FOUND', 'Source property not found in this table');
    if (!target) throw new AppError('NOT_FOUND', 'Target property not found in this table');
    for (const [role, property] of [
      ['source', source],
      ['target', target],
    ] as const) {
      if (property.type !== 'text') {
        throw new AppError(
          'PROPERTY_NOT_TEXT',
          `The ${role} property must be a text property (it is ${property.type})`,
        );
      }
    }

    let cellsProcessed = 0;
    let cellsWritten = 0;
    let targetPropertyUpdated = false;
    let afterSeq = 0;
    for (;;) {
      const rows = await repository.rowsAfter(table.id, afterSeq, deps.splitBatchSize);
      const patches = [];
      for (const row of rows) {
        const split = planRowSplit(row.cells, source.id, target.id);
        if (split.processed) cellsProcessed += 1;
        if (Object.keys(split.cells).length > 0) {
          patches.push({
            rowId: row.id,
            cells: split.cells,
            expected: { propertyId: source.id, value: row.cells[source.id] },
          });
        }
      }
      const written = await repository.patchCells(table.id, patches);
      for (const patch of patches) {
        if (!written.has(patch.rowId)) continue;
        cellsWritten += Object.keys(patch.cells).length;
        if (target.id in patch.cells) targetPropertyUpdated = true;
      }
      const last = rows.at(-1);
      if (!last || rows.length < deps.splitBatchSize) break;
      afterSeq = last.seq;
    }
    return {
      properties: properties.map(propertyBody),
      targetPropertyUpdated,
      cellsProcessed,
      cellsWritten,
    };
  }

  return {
    list_tables: workspaceListHandler({
      cursor: TABLES_LIST,
      field: 'tables',
      standingOf,
      read: (workspaceId, after, limit) => repository.listTables(workspaceId, after, limit),
      toBody: tableBody,
    }),

    async create_table(request) {
      const actor = actorOf(request);
      const body = parseRequestPart(CreateTableBody, request.body);
      requireMember(await standingOf(body.workspaceId, actor.userId));
      const table = await repository.createTable({
        workspaceId: body.workspaceId,
        name: body.name,
        createdBy: actor.userId,
      });
      return { status: 201, body: { table: tableBody(table), properties: [] } };
    },

    async get_table(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const table = await visibleTable(id, actor);
      const properties = await repository.propertiesOf(table.id);
      return {
        status: 200,
        body: { table: tableBody(table), properties: properties.map(propertyBody) },
      };
    },

    async update_table(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(UpdateTableBody, request.body);
      await visibleTable(id, actor);
      const table = await repository.renameTable(id, body.name);
      if (!table) throw new AppError('NOT_FOUND', TABLE_NOT_FOUND);
      const properties = await repository.propertiesOf(table.id);
      return {
        status: 200,
        body: { table: tableBody(table), properties: properties.map(propertyBody) },
      };
    },

    async delete_table(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const table = await visibleTable(id, actor);
      await repository.deleteTable(table.id);
      return { status: 204 };
    },

    async create_table_property(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(CreatePropertyBody, request.body);
      const table = await visibleTable(id, actor);
      const property = await repository.addProperty({
        tableId: table.id,
        name: body.name,
        type: body.type,
        config: body.config ?? defaultConfigOf(body.type),
        isHidden: body.is_hidden ?? false,
      });
      return { status: 201, body: { property: propertyBody(property) } };
    },

    async update_table_property(request) {
      const actor = actorOf(request);
      const { id, propertyId } = parseRequestPart(PropertyParams, request.params);
      const body = parseRequestPart(UpdatePropertyBody, request.body);
      const table = await visibleTable(id, actor);
      const current = (await repository.propertiesOf(table.id)).find(
        (property) => property.id === propertyId,
      );
      if (!current) throw new AppError('NOT_FOUND', PROPERTY_NOT_FOUND);
      const property = await repository.updateProperty(table.id, propertyId, {
        name: body.name,
        isHidden: body.is_hidden,
        config: body.config === undefined ? undefined : configOf(current.type, body.config),
      });
      if (!property) throw new AppError('NOT_FOUND', PROPERTY_NOT_FOUND);
      return { status: 200, body: { property: propertyBody(property) } };
    },

    async delete_table_property(request) {
      const actor = actorOf(request);
      const { id, propertyId } = parseRequestPart(PropertyParams, request.params);
      const table = await visibleTable(id, actor);
      if (!(await repository.deleteProperty(table.id, propertyId))) {
        throw new AppError('NOT_FOUND', PROPERTY_NOT_FOUND);
      }
      return { status: 204 };
    },

    async create_table_row(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(CreateRowBody, request.body);
      const table = await visibleTable(id, actor);
      const row = await repository.addRow(table.id, (properties) => {
        checkCells(properties, body.cells);
        return body.cells;
      });
      if (!row) throw new AppError('NOT_FOUND', TABLE_NOT_FOUND);
      return { status: 201, body: { row: rowBody(row) } };
    },

    async update_table_row(request) {
      const actor = actorOf(request);
      const { id, rowId } = parseRequestPart(RowParams, request.params);
      const body = parseRequestPart(UpdateRowBody, request.body);
      const table = await visibleTable(id, actor);
      const row = await repository.updateRow(table.id, rowId, (properties) => {
        checkCells(properties, body.cells);
        return body.cells;
      });
      if (!row) throw new AppError('NOT_FOUND', ROW_NOT_FOUND);
      return { status: 200, body: { row: rowBody(row) } };
    },

    async delete_table_row(request) {
      const actor = actorOf(request);
      const { id, rowId } = parseRequestPart(RowParams, request.params);
      const table = await visibleTable(id, actor);
      if (!(await repository.deleteRow(table.id, rowId))) {
        throw new AppError('NOT_FOUND', ROW_NOT_FOUND);
      }
      return { status: 204 };
    },

    async list_table_rows(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const query = parseRequestPart(ListRowsQuery, request.query);
      const table = await visibleTable(id, actor);
      const limit = pageLimit(query.limit, ROWS_PAGE);
      const afterSeq = decodeSeqCursor(ROWS_CURSOR, query.cursor) ?? 0;
      const rows = await repository.rowsAfter(table.id, afterSeq, limit + 1);
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        status: 200,
        body: {
          rows: page.map(rowBody),
          nextCursor: rows.length > limit && last ? encodeSeqCursor(ROWS_CURSOR, last.seq) : null,
        },
      };
    },

    async split_name(request) {
      const actor = actorOf(request);
      const { id } = parseRequestPart(IdParams, request.params);
      const body = parseRequestPart(SplitNameBody, request.body);
      const table = await visibleTable(id, actor);
      return { status: 200, body: await splitName(table, body) };
    },
  };
}
