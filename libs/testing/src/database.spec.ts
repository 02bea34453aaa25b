import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from './database';
import { uniqueName } from './names';
import { createTestPlatform } from './platform';

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('createTestDatabase', () => {
  const created: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(created.map((database) => database.drop()));
  });

  it('gives each caller its own empty database', async () => {
    const first = await createTestDatabase();
    const second = await createTestDatabase();
    created.push(first, second);

    expect(first.url).not.toBe(second.url);
    await query(first.url, 'CREATE TABLE notes (body text)');
    await query(first.url, "INSERT INTO notes VALUES ('only in the first')");

    expect(await query(first.url, 'SELECT body FROM notes')).toEqual([
      { body: 'only in the first' },
    ]);
    await expect(query(second.url, 'SELECT body FROM notes')).rejects.toMatchObject({
      code: '42P01', // undefined_table
    });
  });

  it('drops the database even while a connection is open', async () => {
    const database = await createTestDatabase();
    const lingering = new Client({ connectionString: database.url });
    await lingering.connect();
    lingering.on('error', () => undefined); // the forced drop terminates this session

    await database.drop();

    await expect(query(database.url, 'SELECT 1')).rejects.toMatchObject({
      code: '3D000', // invalid_catalog_name: the database is gone
    });
    await lingering.end().catch(() => undefined);
  });
});

describe('createTestPlatform', () => {
  it('runs a distributed platform on its own database and removes it on cleanup', async () => {
    const { platform, databaseUrl, cleanup } = await createTestPlatform({
      serviceName: uniqueName('testing_spec'),
    });
    try {
      expect(platform.runtime).toBe('distributed');
      expect(platform.isReady()).toBe(true);
      await platform.sql.db.execute(sql`CREATE TABLE marker (id int)`);
      expect(
        await query(databaseUrl, "SELECT to_regclass('public.marker')::text AS marker"),
      ).toEqual([{ marker: 'marker' }]);
    } finally {
      await cleanup();
    }
    expect(platform.isReady()).toBe(false);
    await expect(query(databaseUrl, 'SELECT 1')).rejects.toMatchObject({ code: '3D000' });
  });
});

describe('uniqueName', () => {
  it('keeps the prefix and never repeats', () => {
    const names = new Set(Array.from({ length: 1000 }, () => uniqueName('STREAM')));
    expect(names.size).toBe(1000);
    for (const name of names) expect(name).toMatch(/^STREAM_[0-9a-f]{12}$/);
  });
});
