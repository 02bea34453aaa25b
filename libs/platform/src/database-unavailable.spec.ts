import { createServer } from 'node:net';
import { drizzle } from 'drizzle-orm/node-postgres';
import { sql } from 'drizzle-orm';
import { Client, Pool } from 'pg';
import { isDatabaseUnavailable } from './errors';

// The helpers of @wap/testing build on this lib, so this spec reads the server's URL itself.
const DATABASE_URL = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';

/** A port nothing listens on: PostgreSQL not started yet, or gone. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A connection string of the test server on a port where nothing listens. */
async function refusedUrl(): Promise<string> {
  const url = new URL(DATABASE_URL);
  url.port = String(await closedPort());
  return url.toString();
}

async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable (the errors PostgreSQL and pg really raise)', () => {
  test('a server that refuses connections, through the query builder as the services use it', async () => {
    const pool = new Pool({ connectionString: await refusedUrl() });
    try {
      const error = await failureOf(() => drizzle(pool).execute(sql`select 1`));
      expect(isDatabaseUnavailable(error)).toBe(true);
    } finally {
      await pool.end();
    }
  });

  test('a connection the server terminates (57P01, as in a restart) and the next use of it', async () => {
    const client = new Client({ connectionString: DATABASE_URL });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const terminated = await failureOf(() =>
        client.query('select pg_terminate_backend(pg_backend_pid())'),
      );
      expect((terminated as { code?: string }).code).toBe('57P01');
      expect(isDatabaseUnavailable(terminated)).toBe(true);
      const afterwards = await failureOf(() => client.query('select 1'));
      expect(isDatabaseUnavailable(afterwards)).toBe(true);
    } finally {
      await client.end().catch(() => undefined);
    }
  });

  test('errors of the query itself are not an outage', async () => {
    const client = new Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const syntax = await failureOf(() => client.query('select from where'));
      const division = await failureOf(() => client.query('select 1 / 0'));
      expect(isDatabaseUnavailable(syntax)).toBe(false);
      expect(isDatabaseUnavailable(division)).toBe(false);
      expect(isDatabaseUnavailable(new Error('a bug'))).toBe(false);
      expect(isDatabaseUnavailable(undefined)).toBe(false);
    } finally {
      await client.end();
    }
  });
});
