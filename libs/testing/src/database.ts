import { Client } from 'pg';
import { uniqueName } from './names';
import { testServerDatabaseUrl } from './services';

export interface TestDatabase {
  /** Connection string of the new, empty database. */
  url: string;
  /** Terminates the database's connections and drops it. */
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh database on the test server, so each test owns its schemas and data. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = testServerDatabaseUrl();
  const name = uniqueName('test');
  // CREATE DATABASE takes no parameters; the name is ours and safe to quote as an identifier.
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      dropped ??= onServer(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      return dropped;
    },
  };
}
