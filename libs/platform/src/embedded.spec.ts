import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pino from 'pino';
import { z } from 'zod';
import { createEmbeddedPlatform } from './embedded';
import { KvConflictError } from './errors';
import type { Platform } from './platform';
import { describePlatformContract, sleep, waitFor } from './testing';

const logger = pino({ level: 'silent' });
const dataDirs = new WeakMap<Platform, string>();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function freshDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-platform-'));
}

async function open(dataDir: string): Promise<Platform> {
  const platform = await createEmbeddedPlatform({ dataDir, logger });
  dataDirs.set(platform, dataDir);
  return platform;
}

async function reopen(platform: Platform): Promise<Platform> {
  const dataDir = dataDirs.get(platform);
  if (!dataDir) throw new Error('platform was not opened by this spec');
  await platform.close();
  return open(dataDir);
}

/** The records of one of the data folder's append-only logs. */
function logRecords(dataDir: string, file: string): unknown[] {
  return fs
    .readFileSync(path.join(dataDir, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as unknown);
}

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield encoder.encode(part);
}

async function readAll(content: AsyncIterable<Uint8Array>): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const part of content) parts.push(part);
  return Buffer.concat(parts).toString();
}

describePlatformContract('embedded', {
  create: () => open(freshDataDir()),
  restart: reopen,
});

describe('embedded platform', () => {
  it('refuses a second open of one data folder and allows it after close', async () => {
    const dataDir = freshDataDir();
    const first = await open(dataDir);
    await expect(open(dataDir)).rejects.toThrow(/already open in this process/);
    expect(first.isReady()).toBe(true);
    await first.close();
    expect(first.isReady()).toBe(false);
    const second = await open(dataDir);
    await second.close();
  });

  it('takes over a lock left by a process that is gone, but not one held by a live process', async () => {
    const dataDir = freshDataDir();
    const gone = spawnSync(process.execPath, ['-e', '']);
    fs.writeFileSync(path.join(dataDir, 'LOCK'), String(gone.pid));
    const platform = await open(dataDir);
    await platform.close();

    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      fs.writeFileSync(path.join(dataDir, 'LOCK'), String(sleeper.pid));
      await expect(open(dataDir)).rejects.toThrow(`in use by process ${sleeper.pid}`);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it('loses nothing that resolved before the process was killed', async () => {
    const dataDir = freshDataDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'embedded', 'crash-writer.fixture.ts'), dataDir],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (data: Buffer) => {
        if (data.toString().includes('written')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`writer exited early with ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const platform = await open(dataDir);
    try {
      const duplicate = await platform.streams.publish('crash.event', encoder.encode('again'), {
        messageId: 'crash-1',
      });
      expect(duplicate).toEqual({ stream: 'CRASH', seq: 1, duplicate: true });
      const received: string[] = [];
      const consumer = await platform.streams.consume(
        { stream: 'CRASH', durable: 'crash-check' },
        async (message) => {
          received.push(decoder.decode(message.data));
          message.ack();
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await consumer.stop();
      expect(received).toEqual(['survives']);

      const bucket = await platform.kv.bucket('crash');
      await expect(bucket.create('claim', encoder.encode('late'))).rejects.toBeInstanceOf(
        KvConflictError,
      );
      const object = await platform.objects.get('crash', 'file.txt');
      expect(await readAll(object?.content ?? chunks())).toBe('object bytes');
      const rows = z
        .object({ rows: z.array(z.object({ body: z.string() })) })
        .parse(await platform.sql.db.execute(sql`select body from crash_rows`));
      expect(rows.rows).toEqual([{ body: 'row' }]);
    } finally {
      await platform.close();
    }
  }, 60_000);

  it('keeps KV revisions, bucket ttl and stream dedupe ids across a restart', async () => {
    let platform = await open(freshDataDir());
    try {
      const bucket = await platform.kv.bucket('ttl_kept', { ttlMs: 60_000 });
      await bucket.put('a', encoder.encode('1'));
      await bucket.delete('a');
      const beforeRevision = await bucket.put('b', encoder.encode('2'));
      await bucket.delete('b');
      await platform.streams.ensureStream({ name: 'DEDUPE_KEPT', subjects: ['dedupe.>'] });
      const first = await platform.streams.publish('dedupe.x', encoder.encode('x'), {
        messageId: 'once',
      });

      platform = await reopen(platform);

      const reopened = await platform.kv.bucket('ttl_kept');
      expect(await reopened.keys()).toEqual([]);
      expect(await reopened.put('c', encoder.encode('3'))).toBe(beforeRevision + 2);
      const repeat = await platform.streams.publish('dedupe.x', encoder.encode('x'), {
        messageId: 'once',
      });
      expect(repeat).toEqual({ stream: 'DEDUPE_KEPT', seq: first.seq, duplicate: true });
      const kvLog = fs.readFileSync(
        path.join(dataDirs.get(platform) ?? '', 'kv', 'ttl_kept.json'),
        'utf8',
      );
      expect(JSON.parse(kvLog)).toEqual({ ttlMs: 60_000 });
    } finally {
      await platform.close();
    }
  });

  it('sweeps a bucket whose ttl is longer than a timer can wait at most once a minute', async () => {
    // Node runs a timer of more than 2^31-1 ms every 1 ms.
    const longestTimerMs = 2 ** 31 - 1;
    const intervals = jest.spyOn(global, 'setInterval');
    const platform = await open(freshDataDir());
    try {
      const thirtyDays = 30 * 24 * 60 * 60 * 1000;
      const bucket = await platform.kv.bucket('revocations_like', { ttlMs: thirtyDays });
      await bucket.put('kept', encoder.encode('1'));
      const delays = intervals.mock.calls.map(([, delay]) => delay ?? 0);
      expect(delays.length).toBeGreaterThan(0);
      expect(delays.filter((delay) => delay > longestTimerMs)).toEqual([]);
      expect(decoder.decode((await bucket.get('kept'))?.value)).toBe('1');
    } finally {
      intervals.mockRestore();
      await platform.close();
    }
  });

  it('hands out no stream seq twice after its newest messages expired and it restarted twice', async () => {
    let platform = await open(freshDataDir());
    try {
      await platform.streams.ensureStream({
        name: 'AGED',
        subjects: ['aged.>'],
        maxAgeMs: 300,
        duplicateWindowMs: 100,
      });
      const received: number[] = [];
      const consume = () =>
        platform.streams.consume({ stream: 'AGED', durable: 'aged-reader' }, async (message) => {
          received.push(message.seq);
          message.ack();
        });
      let consumer = await consume();
      for (const text of ['a', 'b', 'c']) {
        await platform.streams.publish(`aged.${text}`, encoder.encode(text));
      }
      await waitFor(() => received.length === 3, 'the three messages');
      await consumer.stop();
      await sleep(500);

      // The first reopen compacts the log down to nothing kept; the second reads that log.
      platform = await reopen(platform);
      platform = await reopen(platform);
      const next = await platform.streams.publish('aged.d', encoder.encode('d'));
      expect(next.seq).toBe(4);
      consumer = await consume();
      await waitFor(() => received.length === 4, 'the message after the restarts');
      expect(received).toEqual([1, 2, 3, 4]);
      await consumer.stop();
    } finally {
      await platform.close();
    }
  });

  it('keeps its KV, stream and consumer logs bounded while it runs, without a restart', async () => {
    const dataDir = freshDataDir();
    const platform = await open(dataDir);
    const lines = (file: string) => logRecords(dataDir, file).length;
    try {
      const bucket = await platform.kv.bucket('rewritten');
      for (let batch = 0; batch < 30; batch += 1) {
        await Promise.all(
          Array.from({ length: 100 }, (_unused, index) =>
            bucket.put(`k${index % 10}`, encoder.encode(String(batch))),
          ),
        );
      }
      await waitFor(() => lines('kv/rewritten.log') < 1_100, 'the KV log compacted');
      expect(await bucket.get('k3')).toMatchObject({ value: encoder.encode('29') });

      await platform.streams.ensureStream({
        name: 'SHORT_LIVED',
        subjects: ['short.>'],
        maxAgeMs: 200,
        duplicateWindowMs: 100,
      });
      let acked = 0;
      const consumer = await platform.streams.consume(
        { stream: 'SHORT_LIVED', durable: 'short-reader' },
        async (message) => {
          acked += 1;
          message.ack();
        },
      );
      await Promise.all(
        Array.from({ length: 2_500 }, (_unused, index) =>
          platform.streams.publish(`short.${index}`, encoder.encode(String(index))),
        ),
      );
      await waitFor(() => acked === 2_500, 'every message acked', 30_000);
      await waitFor(
        () => lines('streams/SHORT_LIVED/messages.log') <= 1,
        'the stream log compacted',
      );
      await waitFor(
        () => lines('streams/SHORT_LIVED/consumers/short-reader.log') <= 1,
        'the consumer log compacted',
      );
      await consumer.stop();
    } finally {
      await platform.close();
    }
    // What the compactions left is what a restart reads back.
    const reopened = await open(dataDir);
    try {
      const bucket = await reopened.kv.bucket('rewritten');
      expect(await bucket.get('k9')).toMatchObject({ value: encoder.encode('29') });
      expect((await reopened.streams.publish('short.next', encoder.encode('n'))).seq).toBe(2_501);
    } finally {
      await reopened.close();
    }
  });

  it("keeps a filtered consumer's state small when the stream holds messages it never takes", async () => {
    const dataDir = freshDataDir();
    let platform = await open(dataDir);
    try {
      await platform.streams.ensureStream({ name: 'MIXED', subjects: ['mixed.>'] });
      for (let index = 0; index < 10; index += 1) {
        await platform.streams.publish(
          `mixed.${index % 2 === 0 ? 'taken' : 'other'}`,
          encoder.encode('x'),
        );
      }
      let acked = 0;
      const consumer = await platform.streams.consume(
        { stream: 'MIXED', durable: 'mixed-taken', filterSubject: 'mixed.taken' },
        async (message) => {
          acked += 1;
          message.ack();
        },
      );
      await waitFor(() => acked === 5, 'the five messages taken');
      await consumer.stop();
      platform = await reopen(platform);
      await platform.streams.consume(
        { stream: 'MIXED', durable: 'mixed-taken', filterSubject: 'mixed.taken' },
        async (message) => message.ack(),
      );
      // Opening the consumer wrote its state as one snapshot: everything up to the last message
      // it took is settled, with no list of single seqs left over.
      const [snapshot] = logRecords(dataDir, 'streams/MIXED/consumers/mixed-taken.log');
      expect(snapshot).toMatchObject({ settledUpTo: 9, settled: [] });
    } finally {
      await platform.close();
    }
  });

  it('removes the files of objects older than the max age of their bucket, also after a restart', async () => {
    const dataDir = freshDataDir();
    const folder = path.join(dataDir, 'objects', 'aged');
    let platform = await open(dataDir);
    try {
      await platform.objects.ensureBucket('aged', { maxAgeMs: 300 });
      await platform.objects.put('aged', 'first', chunks('first'));
      await waitFor(() => fs.readdirSync(folder).length === 0, 'the first object removed');

      await platform.objects.put('aged', 'second', chunks('second'));
      await platform.close();
      await sleep(400);
      platform = await open(dataDir);
      // Past its age, the object is gone for readers before any sweep has run.
      expect(await platform.objects.info('aged', 'second')).toBeNull();
      await platform.objects.ensureBucket('aged', { maxAgeMs: 300 });
      await waitFor(() => fs.readdirSync(folder).length === 0, 'the second object removed');
    } finally {
      await platform.close();
    }
  });

  it('keeps every object inside its bucket folder whatever its name', async () => {
    const dataDir = freshDataDir();
    const platform = await open(dataDir);
    try {
      const name = '../../outside/../../etc/passwd';
      await platform.objects.put('names', name, chunks('inside'));
      const stored = await platform.objects.get('names', name);
      expect(stored?.info.name).toBe(name);
      expect(await readAll(stored?.content ?? chunks())).toBe('inside');
      const entries = fs.readdirSync(dataDir, { recursive: true }).map(String);
      expect(
        entries.filter((entry) => entry.includes('outside') || entry.includes('passwd')),
      ).toEqual([]);
      expect(fs.readdirSync(path.join(dataDir, 'objects', 'names')).length).toBe(2);
      await expect(platform.objects.put('../escape', 'x', chunks('x'))).rejects.toThrow(
        /invalid object bucket name/,
      );
    } finally {
      await platform.close();
    }
  });

  it('recovers from a record torn by a crash in the middle of a write', async () => {
    const dataDir = freshDataDir();
    let platform = await open(dataDir);
    try {
      const bucket = await platform.kv.bucket('torn');
      await bucket.put('whole', encoder.encode('kept'));
      await platform.close();
      fs.appendFileSync(path.join(dataDir, 'kv', 'torn.log'), '{"revision":2,"key":"half');
      platform = await open(dataDir);
      const reopened = await platform.kv.bucket('torn');
      expect(decoder.decode((await reopened.get('whole'))?.value)).toBe('kept');
      await reopened.put('next', encoder.encode('n'));
      platform = await reopen(platform);
      const again = await platform.kv.bucket('torn');
      expect((await again.keys()).sort()).toEqual(['next', 'whole']);
    } finally {
      await platform.close();
    }
  });
});
