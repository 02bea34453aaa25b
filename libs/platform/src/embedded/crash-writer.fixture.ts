// Run as a child process by embedded.spec.ts: writes one of everything, reports "written" on
// stdout once every write has resolved, then waits to be killed with SIGKILL.
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { createEmbeddedPlatform } from './index';

async function writeAndWait(dataDir: string): Promise<void> {
  const platform = await createEmbeddedPlatform({ dataDir, logger: pino({ level: 'silent' }) });
  await platform.streams.ensureStream({ name: 'CRASH', subjects: ['crash.>'] });
  await platform.streams.publish('crash.event', new TextEncoder().encode('survives'), {
    messageId: 'crash-1',
  });
  const bucket = await platform.kv.bucket('crash');
  await bucket.create('claim', new TextEncoder().encode('held'));
  async function* content(): AsyncIterable<Uint8Array> {
    yield new TextEncoder().encode('object bytes');
  }
  await platform.objects.put('crash', 'file.txt', content(), { contentType: 'text/plain' });
  await platform.sql.db.execute(sql`create table crash_rows (body text not null)`);
  await platform.sql.db.execute(sql`insert into crash_rows (body) values ('row')`);
  process.stdout.write('written\n');
  await new Promise<never>(() => {
    setInterval(() => undefined, 60_000);
  });
}

void writeAndWait(process.argv[2] ?? '');
