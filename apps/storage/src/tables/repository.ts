import { and, asc, eq, gt, max, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { PropertyType } from '@wap/contracts';
import { type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
import { type KeysetPosition } from '@wap/bus-protocol';
import { newestFirst } from '../db/newest-first';
import { dataTables, tableProperties, tableRows } from '../db/schema';

export interface TableRecord {
  id: string;
  workspaceId: string;
  name: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface PropertyRecord {
  id: string;
  tableId: string;
  name: string;
  type: PropertyType;
  config: Record<string, unknown>;
  position: number;
  isHidden: boolean;
}

export interface RowRecord {
  seq: number;
  id: string;
  tableId: string;
  cells: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** A change to some cells of one row, applied only while the row still holds `expected`. */
export interface CellPatch {
  rowId: string;
  /** The cells to set. */
  cells: Record<string, string>;
  /** Property id and value the row held when the patch was computed. */
  expected: { propertyId: string; value: unknown };
}

/** What a property's update changes; the type never changes. */
export interface PropertyChanges {
  name?: string;
  config?: Record<string, unknown>;
  isHidden?: boolean;
}

/** The cells a write stores, decided against the table's properties as they are in its transaction. */
export type CellsOf = (properties: PropertyRecord[]) => Record<string, unknown>;

const WrittenRows = z.object({ rows: z.array(z.object({ id: z.string() })) });

/** The option ids of a select or multi-select config. */
function optionIdsOf(config: Record<string, unknown>): string[] {
  const options = Array.isArray(config['options']) ? config['options'] : [];
  return options.flatMap((option: unknown) =>
    typeof option === 'object' && option !== null && 'id' in option ? [String(option.id)] : [],
  );
}

/*
 * Locks: a change to a table's properties, and its deletion, hold its row FOR UPDATE; a write of
 * rows holds it FOR SHARE while it checks cells against the properties and stores them. So a row
 * is never stored against properties that changed meanwhile, nor into a table being deleted.
 */

export type TablesRepository = ReturnType<typeof createTablesRepository>;

type Transaction = Parameters<Parameters<SqlDatabase['transaction']>[0]>[0];

/** The table's properties with its row held FOR SHARE; null when the table is gone. */
async function lockedProperties(
  tx: Transaction,
  tableId: string,
): Promise<PropertyRecord[] | null> {
  const locked = await tx
    .select({ id: dataTables.id })
    .from(dataTables)
    .where(eq(dataTables.id, tableId))
    .for('share');
  if (locked.length === 0) return null;
  const properties = await tx
    .select()
    .from(tableProperties)
    .where(eq(tableProperties.tableId, tableId))
    .orderBy(asc(tableProperties.position));
  return properties.map((property) => ({ ...property, type: property.type as PropertyType }));
}

/* eslint-disable-next-line max-lines-per-function --
  a repository: one short method per query over the one database handle its callers share */
export function createTablesRepository(deps: { db: SqlDatabase; clock: Clock; ids: IdSource }) {
  const { db, clock, ids } = deps;

  return {
    async createTable(input: {
      workspaceId: string;
      name: string;
      createdBy: string;
    }): Promise<TableRecord> {
      const now = clock.now();
      const table: TableRecord = { id: ids.uuid(), ...input, createdAt: now, updatedAt: now };
      await db.insert(dataTables).values(table);
      return table;
    },

    /** Up to `limit` tables of the workspace after `after`, newest first. */
    async listTables(
      workspaceId: string,
      after: KeysetPosition | undefined,
      limit: number,
    ): Promise<TableRecord[]> {
      const order = newestFirst(dataTables);
      return db
        .select()
        .from(dataTables)
        .where(and(eq(dataTables.workspaceId, workspaceId), order.after(after)))
        .orderBy(...order.orderBy)
        .limit(limit);
    },

    async findTable(tableId: string): Promise<TableRecord | null> {
      const [table] = await db.select().from(dataTables).where(eq(dataTables.id, tableId));
      return table ?? null;
    },

    async renameTable(tableId: string, name: string): Promise<TableRecord | null> {
      const [table] = await db
        .update(dataTables)
        .set({ name, updatedAt: clock.now() })
        .where(eq(dataTables.id, tableId))
        .returning();
      return table ?? null;
    },

    /** Deletes the table, its properties and its rows at once. */
    async deleteTable(tableId: string): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${dataTables} where id = ${tableId} for update`);
        await tx.delete(tableRows).where(eq(tableRows.tableId, tableId));
        await tx.delete(tableProperties).where(eq(tableProperties.tableId, tableId));
        await tx.delete(dataTables).where(eq(dataTables.id, tableId));
      });
    },

    async propertiesOf(tableId: string): Promise<PropertyRecord[]> {
      const rows = await db
        .select()
        .from(tableProperties)
        .where(eq(tableProperties.tableId, tableId))
        .orderBy(asc(tableProperties.position));
      return rows.map((row) => ({ ...row, type: row.type as PropertyType }));
    },

    /** Appends a property after the last one; the unique (table, position) index orders racers. */
    async addProperty(input: Omit<PropertyRecord, 'id' | 'position'>): Promise<PropertyRecord> {
      return db.transaction(async (tx) => {
        // Serializes concurrent additions to one table so positions stay dense and unique.
        await tx.execute(sql`select id from ${dataTables} where id = ${input.tableId} for update`);
        const [last] = await tx
          .select({ position: max(tableProperties.position) })
          .from(tableProperties)
          .where(eq(tableProperties.tableId, input.tableId));
        const property: PropertyRecord = {
          ...input,
          id: ids.uuid(),
          position: (last?.position ?? -1) + 1,
        };
        await tx.insert(tableProperties).values(property);
        return property;
      });
    },

    /**
     * Changes a property; a select's options that are gone are emptied from every row in the same
     * transaction, so no cell keeps an option the property no longer has. Null: no such property.
     */
    async updateProperty(
      tableId: string,
      propertyId: string,
      changes: PropertyChanges,
    ): Promise<PropertyRecord | null> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${dataTables} where id = ${tableId} for update`);
        const [updated] = await tx
          .update(tableProperties)
          .set(changes)
          .where(and(eq(tableProperties.id, propertyId), eq(tableProperties.tableId, tableId)))
          .returning();
        if (!updated) return null;
        const property = { ...updated, type: updated.type as PropertyType };
        if (changes.config && (property.type === 'select' || property.type === 'multi_select')) {
          const kept = JSON.stringify(optionIdsOf(property.config));
          const now = clock.now().toISOString();
          await tx.execute(
            property.type === 'select'
              ? sql`
                update ${tableRows}
                set cells = cells - ${propertyId}::text, updated_at = ${now}::timestamptz
                where table_id = ${tableId}
                  and jsonb_typeof(cells -> ${propertyId}::text) = 'string'
                  and not (cells ->> ${propertyId}::text) in
                    (select jsonb_array_elements_text(${kept}::jsonb))`
              : sql`
                update ${tableRows}
                set cells = jsonb_set(cells, array[${propertyId}::text], coalesce(
                  (select jsonb_agg(option) from jsonb_array_elements(cells -> ${propertyId}::text)
                   as option where option #>> '{}' in
                     (select jsonb_array_elements_text(${kept}::jsonb))),
                  '[]'::jsonb)), updated_at = ${now}::timestamptz
                where table_id = ${tableId}
                  and jsonb_typeof(cells -> ${propertyId}::text) = 'array'
                  and exists (select 1 from jsonb_array_elements(cells -> ${propertyId}::text)
                    as option where not option #>> '{}' in
                      (select jsonb_array_elements_text(${kept}::jsonb)))`,
          );
        }
        return property;
      });
    },

    /** Deletes a property and its cell in every row. False: no such property. */
    async deleteProperty(tableId: string, propertyId: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`select id from ${dataTables} where id = ${tableId} for update`);
        const deleted = await tx
          .delete(tableProperties)
          .where(and(eq(tableProperties.id, propertyId), eq(tableProperties.tableId, tableId)))
          .returning({ id: tableProperties.id });
        if (deleted.length === 0) return false;
        await tx.execute(sql`
          update ${tableRows}
          set cells = cells - ${propertyId}::text, updated_at = ${clock.now().toISOString()}::timestamptz
          where table_id = ${tableId} and cells ? ${propertyId}::text`);
        return true;
      });
    },

    /** Adds a row with the cells `cellsOf` decides; null when the table is gone. */
    async addRow(tableId: string, cellsOf: CellsOf): Promise<RowRecord | null> {
      return db.transaction(async (tx) => {
        const properties = await lockedProperties(tx, tableId);
        if (!properties) return null;
        const now = clock.now();
        const [row] = await tx
          .insert(tableRows)
          .values({
            id: ids.uuid(),
            tableId,
            cells: cellsOf(properties),
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return row ?? null;
      });
    },

    /** Sets the cells `cellsOf` decides over the row's others; null when the row is not there. */
    async updateRow(tableId: string, rowId: string, cellsOf: CellsOf): Promise<RowRecord | null> {
      return db.transaction(async (tx) => {
        const properties = await lockedProperties(tx, tableId);
        if (!properties) return null;
        const changed = JSON.stringify(cellsOf(properties));
        const [row] = await tx
          .update(tableRows)
          .set({ cells: sql`${tableRows.cells} || ${changed}::jsonb`, updatedAt: clock.now() })
          .where(and(eq(tableRows.id, rowId), eq(tableRows.tableId, tableId)))
          .returning();
        return row ?? null;
      });
    },

    /** False: no such row in this table. */
    async deleteRow(tableId: string, rowId: string): Promise<boolean> {
      const deleted = await db
        .delete(tableRows)
        .where(and(eq(tableRows.id, rowId), eq(tableRows.tableId, tableId)))
        .returning({ id: tableRows.id });
      return deleted.length > 0;
    },

    /** Up to `limit` rows after `afterSeq`, oldest first. */
    async rowsAfter(tableId: string, afterSeq: number, limit: number): Promise<RowRecord[]> {
      return db
        .select()
        .from(tableRows)
        .where(and(eq(tableRows.tableId, tableId), gt(tableRows.seq, afterSeq)))
        .orderBy(asc(tableRows.seq))
        .limit(limit);
    },

    /**
     * Applies the patches of one batch in one statement and one transaction: a row is written
     * whole or not at all, and a row whose checked cell changed since it was read is left alone.
     * Returns the ids of the rows written.
     */
    async patchCells(tableId: string, patches: CellPatch[]): Promise<Set<string>> {
      if (patches.length === 0) return new Set();
      const payload = JSON.stringify(
        patches.map((patch) => ({
          id: patch.rowId,
          cells: patch.cells,
          property: patch.expected.propertyId,
          expected: patch.expected.value ?? null,
        })),
      );
      const result = await db.execute(sql`
        update ${tableRows} as r
        set cells = r.cells || p.cells, updated_at = ${clock.now().toISOString()}::timestamptz
        from jsonb_to_recordset(${payload}::jsonb)
          as p(id uuid, cells jsonb, property text, expected jsonb)
        where r.id = p.id
          and r.table_id = ${tableId}
          and coalesce(r.cells -> p.property, 'null'::jsonb) = p.expected
        returning r.id`);
      return new Set(WrittenRows.parse(result).rows.map((row) => row.id));
    },
  };
}
