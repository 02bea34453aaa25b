import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import type { Pool } from 'pg';
import type { Sql } from '../platform';

/** Journal table of applied migrations, kept in each service's own schema. */
const MIGRATIONS_TABLE = '__migrations';

export function createPostgresSql(pool: Pool): Sql {
  return {
    db: drizzle(pool),

    async migrate(set) {
      // A session-level advisory lock on one dedicated connection: replicas starting together
      // queue up here, and each one after the first finds the journal up to date.
      const client = await pool.connect();
      let failure: Error | undefined;
      try {
        await client.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${set.schema}`]);
        try {
          await migrate(drizzle(client), {
            migrationsFolder: set.migrationsFolder,
            migrationsSchema: set.schema,
            migrationsTable: MIGRATIONS_TABLE,
          });
        } finally {
          await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`migrate:${set.schema}`]);
        }
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
        throw error;
      } finally {
        // A connection that failed mid-way may still hold the lock: destroy it rather than reuse it.
        client.release(failure);
      }
    },
  };
}
