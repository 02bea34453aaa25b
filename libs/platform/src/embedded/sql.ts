import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import type { Sql, SqlDatabase } from '../platform';

/** PGlite (PostgreSQL in WASM) persisted at `<dataDir>/pglite`, behind drizzle. */
export async function createEmbeddedSql(
  dataDir: string,
): Promise<Sql & { close(): Promise<void> }> {
  const client = await PGlite.create(path.join(dataDir, 'pglite'));
  const database = drizzle({ client });
  // PGlite is one connection: migrations run one after the other, never interleaved.
  let migrations: Promise<void> = Promise.resolve();

  return {
    db: database as unknown as SqlDatabase,
    migrate({ schema, migrationsFolder }) {
      const run = migrations.then(() =>
        migrate(database, {
          migrationsFolder,
          migrationsSchema: schema,
          migrationsTable: '__migrations',
        }),
      );
      migrations = run.catch(() => undefined);
      return run;
    },
    async close() {
      await migrations;
      await client.close();
    },
  };
}
