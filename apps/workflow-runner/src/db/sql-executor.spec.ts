import { randomBytes } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Platform } from '@wap/platform';
import { runtimes, type RuntimeUnderTest } from '../testing/runner-harness';
import { anyOfUuids, uuidArray } from './sql-executor';

const ROWS = 80_000;
/** A full batch of the webhook-events consumer. */
const BATCH = 128;
const PlanLines = z.object({ rows: z.array(z.record(z.string(), z.string())) });

describe.each(runtimes)('anyOfUuids on the %s runtime', (_name, makeRuntime) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  const schema = `plan_${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    runtime = await makeRuntime();
    platform = runtime.platform;
    const db = platform.sql.db;
    await db.execute(sql.raw(`create schema ${schema}`));
    // Shaped like run_steps, and never analyzed: as every table is where autovacuum is off.
    await db.execute(
      sql.raw(`create table ${schema}.steps (run_id uuid not null, step_index integer not null,
        settings jsonb not null, status text not null, primary key (run_id, step_index))`),
    );
    await db.execute(
      sql.raw(`insert into ${schema}.steps select gen_random_uuid(), 0,
        '{"seconds":0}', 'pending' from generate_series(1, ${ROWS})`),
    );
  });
  afterAll(async () => {
    await platform.sql.db.execute(sql.raw(`drop schema ${schema} cascade`));
    await runtime.cleanup();
  });

  async function planOf(match: (ids: string[]) => SQL): Promise<string> {
    const db = platform.sql.db;
    const sample = await db.execute(
      sql.raw(`select run_id from ${schema}.steps order by random() limit ${BATCH}`),
    );
    const ids = z
      .object({ rows: z.array(z.object({ run_id: z.string() })) })
      .parse(sample)
      .rows.map((row) => row.run_id);
    const explained = await db.execute(
      sql`explain select * from ${sql.raw(`${schema}.steps`)} where run_id = ${match(ids)}`,
    );
    return PlanLines.parse(explained)
      .rows.map((row) => Object.values(row).join(''))
      .join('\n');
  }

  test('a batch of ids is matched through the index of a table without statistics', async () => {
    // The premise: against a literal array, the planner reads the whole table.
    expect(await planOf((ids) => sql`any(${uuidArray(ids)})`)).toMatch(/Seq Scan/);

    const plan = await planOf(anyOfUuids);
    expect(plan).toMatch(/Index/);
    expect(plan).not.toMatch(/Seq Scan on/);
  });
});
