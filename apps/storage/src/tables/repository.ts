import { and, asc, eq, gt, max, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { PropertyType } from '@wap/contracts';
import { type KeysetPosition, type Clock, type IdSource, type SqlDatabase } from '@wap/platform';
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

const WrittenRows = z.object({ rows: z.array(z.object({ id: z.string() })) });

export type TablesRepository = ReturnType<typeof createTablesRepository>;

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

    async addRow(tableId: string, cells: Record<string, unknown>): Promise<RowRecord> {
      const now = clock.now();
      const [row] = await db
        .insert(tableRows)
        .values({ id: ids.uuid(), tableId, cells, createdAt: now, updatedAt: now })
        .returning();
      if (!row) throw new Error('insert returned no row');
      return row;
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
