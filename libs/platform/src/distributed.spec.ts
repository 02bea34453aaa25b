import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { Client } from 'pg';
import pino from 'pino';
import { createDistributedPlatform } from './distributed';
import type { Platform, StreamConsumer } from './platform';
import {
  deleteStreams,
  describePlatformContract,
  recordingCreatedStreams,
  streamNamesOnServer,
} from './testing';

const encoder = new TextEncoder();
const text = (value: string): Uint8Array => encoder.encode(value);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/*
 * The helpers of @wap/testing build on this lib, so its own spec cannot import them without a
 * dependency cycle: it creates its databases here, on the same servers and env variables.
 */
const natsUrl = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const serverDatabaseUrl =
  process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
const logger = pino({ level: process.env['LOG_LEVEL'] || 'silent' });
const uniqueName = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

async function onServer(statement: string): Promise<void> {
  const client = new Client({ connectionString: serverDatabaseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

/** A fresh database, dropped after the file. */
async function freshDatabaseUrl(): Promise<string> {
  const name = uniqueName('platform_spec');
  await onServer(`CREATE DATABASE "${name}"`);
  cleanups.push(() => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const url = new URL(serverDatabaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The streams, KV and object buckets the spec's platforms were asked for, on the shared server. */
const createdStreams = new Set<string>();

// Runs once the describe blocks below have closed their platforms: no consumer is left reading
// from a stream being deleted.
afterAll(async () => {
  const neverOnServer = await deleteStreams(natsUrl, createdStreams);
  const stillOnServer = (await streamNamesOnServer(natsUrl)).filter((name) =>
    createdStreams.has(name),
  );
  // Every call the spec makes creates what it asks for: a name the server never held is one the
  // recorder got wrong, and the real stream behind it would stay.
  expect({ neverOnServer, stillOnServer }).toEqual({ neverOnServer: [], stillOnServer: [] });
});

async function distributedPlatform(databaseUrl: string): Promise<Platform> {
  const platform = await createDistributedPlatform({
    natsUrl,
    databaseUrl,
    serviceName: uniqueName('platform_spec'),
    logger,
  });
  return recordingCreatedStreams(platform, createdStreams);
}

async function platformOnFreshDatabase(): Promise<Platform> {
  return distributedPlatform(await freshDatabaseUrl());
}

// No restart: the distributed state lives in NATS and PostgreSQL, which outlive the process.
describePlatformContract('distributed (NATS + PostgreSQL)', { create: platformOnFreshDatabase });

describe('distributed platform beyond the contract', () => {
  let platform: Platform;
  const consumers: StreamConsumer[] = [];

  beforeAll(async () => {
    platform = await platformOnFreshDatabase();
  });

  afterAll(async () => {
    await platform.close();
  });

  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
  });

  async function freshStream(): Promise<{ stream: string; prefix: string }> {
    const suffix = uniqueName('s').toLowerCase();
    const stream = suffix.toUpperCase();
    const prefix = `distributed.${suffix}`;
    await platform.streams.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
    return { stream, prefix };
  }

  it('makes one stream asked for by two processes at once', async () => {
    const other = await platformOnFreshDatabase();
    try {
      for (let round = 0; round < 5; round += 1) {
        const suffix = uniqueName('race').toLowerCase();
        const config = { name: suffix.toUpperCase(), subjects: [`distributed.${suffix}.>`] };
        await Promise.all([
          platform.streams.ensureStream(config),
          other.streams.ensureStream(config),
        ]);
        const ack = await platform.streams.publish(`distributed.${suffix}.event`, text('one'));
        expect(ack.stream).toBe(config.name);
      }
    } finally {
      await other.close();
    }
  });

  it('updates an existing stream when its subjects change', async () => {
    const { stream, prefix } = await freshStream();
    const added = `${prefix}_more`;
    await platform.streams.ensureStream({ name: stream, subjects: [`${prefix}.>`, `${added}.>`] });
    const ack = await platform.streams.publish(`${added}.event`, text('captured'));
    expect(ack.stream).toBe(stream);
  });

  it('runs handlers of one consumer concurrently', async () => {
    const { stream, prefix } = await freshStream();
    const total = 5;
    for (let index = 0; index < total; index += 1) {
      await platform.streams.publish(`${prefix}.job`, text(String(index)));
    }
    let running = 0;
    let mostAtOnce = 0;
    let done = 0;
    consumers.push(
      await platform.streams.consume(
        { stream, durable: 'distributed-concurrent' },
        async (message) => {
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          await sleep(300);
          running -= 1;
          done += 1;
          message.ack();
        },
      ),
    );
    await eventually(() => done === total, 'all jobs');
    expect(mostAtOnce).toBe(total);
  });

  it('stop() waits for the handlers in progress', async () => {
    const { stream, prefix } = await freshStream();
    await platform.streams.publish(`${prefix}.job`, text('slow'));
    let started = false;
    let finished = false;
    const consumer = await platform.streams.consume(
      { stream, durable: 'distributed-stop' },
      async (message) => {
        started = true;
        await sleep(400);
        message.ack();
        finished = true;
      },
    );
    await eventually(() => started, 'the handler to start');
    await consumer.stop();
    expect(finished).toBe(true);
  });

  it('applies a changed TTL to a bucket that already exists', async () => {
    const name = uniqueName('ttl_change');
    const forever = await platform.kv.bucket(name);
    await forever.put('kept', text('v'));
    const expiring = await platform.kv.bucket(name, { ttlMs: 500 });
    await expiring.create('lease', text('held'));
    await eventually(async () => (await expiring.get('lease')) === null, 'the lease to expire');
  });

  it('reports ready at once when watching an empty bucket', async () => {
    const bucket = await platform.kv.bucket(uniqueName('empty'));
    let ready = false;
    const watcher = await bucket.watch(
      () => undefined,
      () => {
        ready = true;
      },
    );
    try {
      await eventually(() => ready, 'ready on an empty bucket');
    } finally {
      await watcher.stop();
    }
  });

  it('migrates once when replicas with their own pools start together', async () => {
    const databaseUrl = await freshDatabaseUrl();
    const replicas = await Promise.all([1, 2, 3].map(() => distributedPlatform(databaseUrl)));
    try {
      const schema = uniqueName('replicas');
      const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'distributed-migrations-'));
      fs.mkdirSync(path.join(folder, 'meta'));
      // Without the lock two replicas run this together and one fails on the duplicate table.
      fs.writeFileSync(
        path.join(folder, '0000_init.sql'),
        `CREATE SCHEMA IF NOT EXISTS "${schema}";\n--> statement-breakpoint\nCREATE TABLE "${schema}"."items" (id serial primary key);\n--> statement-breakpoint\nSELECT pg_sleep(0.2);`,
      );
      fs.writeFileSync(
        path.join(folder, 'meta', '_journal.json'),
        JSON.stringify({
          version: '7',
          dialect: 'postgresql',
          entries: [{ idx: 0, version: '7', when: 1, tag: '0000_init', breakpoints: true }],
        }),
      );
      await Promise.all(
        replicas.map((replica) => replica.sql.migrate({ schema, migrationsFolder: folder })),
      );
      const journal = await replicas[0]?.sql.db.execute(
        sql`select count(*)::int as count from ${sql.identifier(schema)}.__migrations`,
      );
      expect(journal).toMatchObject({ rows: [{ count: 1 }] });
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()));
    }
  });

  it('close() lets a request being handled send its reply before the connection drains', async () => {
    const serving = await platformOnFreshDatabase();
    const subject = `distributed.${uniqueName('closing')}`;
    let started = false;
    serving.bus.serve(subject, async () => {
      started = true;
      await sleep(300);
      return { data: text('answered') };
    });
    // The subscription travels on another connection than the request: a probe subject served
    // after it on the same connection answers only once the server has registered both.
    serving.bus.serve(`${subject}_probe`, async () => ({ data: text('ready') }));
    await eventually(
      () =>
        platform.bus.request(`${subject}_probe`, text('?'), { timeoutMs: 500 }).then(
          () => true,
          () => false,
        ),
      'the subscriptions to reach the server',
    );
    const reply = platform.bus.request(subject, text('q'), { timeoutMs: 3_000 });
    await eventually(() => started, 'the handler to start');
    await serving.close();
    expect(new TextDecoder().decode((await reply).data)).toBe('answered');
  });

  it('is not ready once closed, and closing twice is harmless', async () => {
    const closing = await platformOnFreshDatabase();
    expect(closing.isReady()).toBe(true);
    await closing.close();
    expect(closing.isReady()).toBe(false);
    await closing.close();
  });

  it('reconnects soon to a server that accepted a connection and never answered it', async () => {
    // A relay in front of NATS: cut, it drops every connection, then keeps the next ones open
    // without a byte, as a server does while it shuts down; healed, it relays again.
    const target = new URL(natsUrl.split(',')[0] ?? natsUrl);
    let silent = false;
    const sockets = new Set<net.Socket>();
    const relay = net.createServer((client) => {
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      client.on('error', () => client.destroy());
      if (silent) return;
      const server = net.connect(Number(target.port || 4222), target.hostname);
      server.on('error', () => client.destroy());
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
      client.pipe(server).pipe(client);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const { port } = relay.address() as net.AddressInfo;
    const relayed = await createDistributedPlatform({
      natsUrl: `nats://127.0.0.1:${port}`,
      serviceName: 'relayed',
      logger,
    });
    try {
      silent = true;
      for (const socket of sockets) socket.destroy();
      await eventually(() => !relayed.isReady(), 'the disconnect');
      // Let a reconnect attempt land on the silent relay before it heals.
      await sleep(1_000);
      silent = false;
      const healedAt = Date.now();
      const deadline = healedAt + 10_000;
      while (!relayed.isReady() && Date.now() < deadline) await sleep(50);
      // With the client's default, the attempt on the silent relay holds it for 20 s.
      expect(relayed.isReady()).toBe(true);
    } finally {
      await relayed.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    }
  }, 30_000);
});
