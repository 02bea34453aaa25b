import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import pino from 'pino';
import { createDistributedPlatform } from './index';

// The helpers of @wap/testing build on this lib, so this spec reads the servers' URLs itself.
const natsUrl = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const databaseUrl = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Ends a backend from another connection, as a PostgreSQL restart ends them all. */
async function terminateBackend(pid: number): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
}

test('a connection lost between two statements of a transaction fails that transaction; the process and the pool carry on', async () => {
  const platform = await createDistributedPlatform({
    natsUrl,
    databaseUrl,
    serviceName: 'connection-loss-spec',
    logger: pino({ level: 'silent' }),
    poolSize: 1,
  });
  try {
    const outcome = await platform.sql.db
      .transaction(async (tx) => {
        const backend = (await tx.execute(sql`select pg_backend_pid() as pid`)) as {
          rows: { pid: number }[];
        };
        await terminateBackend(Number(backend.rows[0]?.pid));
        // The server's goodbye reaches the client while none of its statements is running: the
        // moment that used to be an unhandled 'error' event.
        await sleep(200);
        await tx.execute(sql`select 1`);
      })
      .then(
        () => 'committed',
        () => 'failed',
      );
    expect(outcome).toBe('failed');
    // The one pooled connection was dropped, not handed out again broken.
    expect(await platform.sql.db.execute(sql`select 1 as one`)).toMatchObject({
      rows: [{ one: 1 }],
    });
  } finally {
    await platform.close();
  }
});
