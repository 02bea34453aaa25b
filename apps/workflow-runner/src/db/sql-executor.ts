import { sql, type SQL } from 'drizzle-orm';
import type { SqlDatabase } from '@wap/platform';

/** What runs statements: the database, or one of its transactions. */
export type SqlExecutor = Pick<SqlDatabase, 'execute'>;

/**
 * A list of uuids as one `uuid[]` parameter, for `column = any(...)`. Unlike a join with a set
 * function (which the planner guesses at 100 rows), the array's length is known when the
 * statement is planned, so the column's index is used however large the table has grown.
 */
export function uuidArray(ids: readonly string[]): SQL {
  return sql`${`{${ids.join(',')}}`}::uuid[]`;
}
