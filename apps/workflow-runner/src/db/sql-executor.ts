import { sql, type SQL } from 'drizzle-orm';
import type { SqlDatabase } from '@wap/platform';

/** What runs statements: the database, or one of its transactions. */
export type SqlExecutor = Pick<SqlDatabase, 'execute'>;

/** A list of uuids as one `uuid[]` parameter. */
export function uuidArray(ids: readonly string[]): SQL {
  return sql`${`{${ids.join(',')}}`}::uuid[]`;
}

/**
 * `column = ${anyOfUuids(ids)}` matches the listed uuids through the column's index, whether or not
 * the table has statistics. Against a literal array, a table never analyzed (autovacuum off, or
 * a table that grew since) gives each element the default selectivity of 0.5 %, and a batch of
 * 128 ids makes a sequential scan look cheaper: under load, every batch read the whole table.
 * The result of a sub-select is unknown when the statement is planned and taken for a few rows.
 */
export function anyOfUuids(ids: readonly string[]): SQL {
  return sql`any(array(select unnest(${uuidArray(ids)})))`;
}
