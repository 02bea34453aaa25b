import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { BusTimeoutError, KvConflictError, NoRespondersError } from '../errors';
import type { KvWatchEvent, Platform, StreamConsumer, StreamMessage } from '../platform';
import { sleep, waitFor } from './wait';

/** Builds platforms for the contract suite; every `create()` is isolated from the others. */
export interface PlatformFactory {
  create(): Promise<Platform>;
  /**
   * Closes `platform` and opens the same persistent state again (embedded only: the
   * distributed adapter's state lives in servers that outlive the process).
   */
  restart?(platform: Platform): Promise<Platform>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const text = (value: string): Uint8Array => encoder.encode(value);
const read = (data: Uint8Array): string => decoder.decode(data);

/** A random suffix so that tests can share one NATS server and run in parallel. */
function uniqueSuffix(): string {
  return randomBytes(6).toString('hex');
}

async function* chunksOf(data: Uint8Array, chunkSize: number): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += chunkSize) {
    await Promise.resolve();
    yield data.subarray(offset, offset + chunkSize);
  }
}

async function sha256Of(
  content: AsyncIterable<Uint8Array>,
): Promise<{ hash: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of content) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { hash: hash.digest('hex'), size };
}

const FIXTURE_SCHEMA = 'platform_contract';
const fixtureFolder = path.join(__dirname, 'fixtures', 'migrations');

/** Copies the migrations fixture into a temp folder, moved into `schema` so each test owns its tables. */
function migrationsFor(schema: string): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'platform-contract-migrations-'));
  fs.mkdirSync(path.join(folder, 'meta'));
  for (const file of ['0000_contract_notes.sql', 'meta/_journal.json']) {
    const source = fs.readFileSync(path.join(fixtureFolder, file), 'utf8');
    fs.writeFileSync(path.join(folder, file), source.replaceAll(FIXTURE_SCHEMA, schema));
  }
  return folder;
}

const NoteRows = z.object({
  rows: z.array(z.object({ id: z.coerce.number(), body: z.string() })),
});

const CountRows = z.object({ rows: z.array(z.object({ count: z.coerce.number() })) });

/**
 * The behaviour every `Platform` adapter must show. Call it from an adapter's spec with a
 * factory of fresh platforms; tests that need a restart run only when `factory.restart` exists.
 */
export function describePlatformContract(name: string, factory: PlatformFactory): void {
  describe(`Platform contract: ${name}`, () => {
    let platform: Platform;

    beforeAll(async () => {
      platform = await factory.create();
    });

    afterAll(async () => {
      await platform.close();
    });

    describe('bus', () => {
      it('answers a request with the reply and its headers', async () => {
        const subject = `contract.${uniqueSuffix()}.echo`;
        const subscription = platform.bus.serve(subject, async (message) => ({
          data: text(`echo:${read(message.data)}`),
          headers: {
            'x-seen': message.headers['x-request'] ?? 'missing',
            'x-subject': message.subject,
          },
        }));
        try {
          const reply = await platform.bus.request(subject, text('hello'), {
            timeoutMs: 5_000,
            headers: { 'x-request': 'r-1' },
          });
          expect(read(reply.data)).toBe('echo:hello');
          expect(reply.headers['x-seen']).toBe('r-1');
          expect(reply.headers['x-subject']).toBe(subject);
        } finally {
          await subscription.unsubscribe();
        }
      });

      it('fails fast with NoRespondersError when nobody serves the subject', async () => {
        const started = Date.now();
        await expect(
          platform.bus.request(`contract.${uniqueSuffix()}.nobody`, text('x'), {
            timeoutMs: 10_000,
          }),
        ).rejects.toBeInstanceOf(NoRespondersError);
        expect(Date.now() - started).toBeLessThan(2_000);
      });

      it('fails with BusTimeoutError when the reply takes longer than timeoutMs', async () => {
        const subject = `contract.${uniqueSuffix()}.slow`;
        const subscription = platform.bus.serve(subject, async () => {
          await sleep(1_000);
          return { data: text('late') };
        });
        try {
          const started = Date.now();
          await expect(
            platform.bus.request(subject, text('x'), { timeoutMs: 200 }),
          ).rejects.toBeInstanceOf(BusTimeoutError);
          const elapsed = Date.now() - started;
          expect(elapsed).toBeGreaterThanOrEqual(150);
          expect(elapsed).toBeLessThan(1_000);
        } finally {
          await sleep(900);
          await subscription.unsubscribe();
        }
      });

      it('delivers a request to a plain subscriber too, which cannot answer it', async () => {
        const subject = `contract.${uniqueSuffix()}.listened`;
        const heard: string[] = [];
        const subscription = platform.bus.subscribe(subject, (message) => {
          heard.push(read(message.data));
        });
        try {
          await expect(
            platform.bus.request(subject, text('question'), { timeoutMs: 300 }),
          ).rejects.toBeInstanceOf(BusTimeoutError);
          expect(heard).toEqual(['question']);
        } finally {
          await subscription.unsubscribe();
        }
      });

      it('spreads requests over the members of a queue group, one answer each', async () => {
        const subject = `contract.${uniqueSuffix()}.work`;
        const handledBy = { a: 0, b: 0 };
        const subscriptions = (['a', 'b'] as const).map((member) =>
          platform.bus.serve(
            subject,
            async (message) => {
              handledBy[member] += 1;
              return { data: text(`${member}:${read(message.data)}`) };
            },
            { queue: 'workers' },
          ),
        );
        try {
          const replies = await Promise.all(
            Array.from({ length: 100 }, (_, index) =>
              platform.bus.request(subject, text(String(index)), { timeoutMs: 5_000 }),
            ),
          );
          replies.forEach((reply, index) => {
            expect(read(reply.data)).toMatch(new RegExp(`^[ab]:${index}$`));
          });
          expect(handledBy.a + handledBy.b).toBe(100);
          expect(handledBy.a).toBeGreaterThan(0);
          expect(handledBy.b).toBeGreaterThan(0);
        } finally {
          await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
        }
      });

      it('fans a publish out to every subscriber, matching * and > wildcards', async () => {
        const prefix = `contract.${uniqueSuffix()}`;
        const received: Record<'exact' | 'star' | 'tail' | 'other', string[]> = {
          exact: [],
          star: [],
          tail: [],
          other: [],
        };
        const subscriptions = [
          platform.bus.subscribe(`${prefix}.evt.created`, (message) => {
            received.exact.push(read(message.data));
          }),
          platform.bus.subscribe(`${prefix}.evt.*`, (message) => {
            received.star.push(`${message.subject}=${read(message.data)}`);
          }),
          platform.bus.subscribe(`${prefix}.>`, (message) => {
            received.tail.push(read(message.data));
          }),
          platform.bus.subscribe(`${prefix}.other`, (message) => {
            received.other.push(read(message.data));
          }),
        ];
        try {
          // A round trip through a served subject makes sure the subscriptions are registered.
          // (Outside the prefix: on NATS the request itself would reach the `>` subscriber.)
          const pingSubject = `contract.${uniqueSuffix()}.ping`;
          const ping = platform.bus.serve(pingSubject, async () => ({ data: text('pong') }));
          await platform.bus.request(pingSubject, text(''), { timeoutMs: 5_000 });
          await ping.unsubscribe();

          platform.bus.publish(`${prefix}.evt.created`, text('1'), { 'x-k': 'v' });
          platform.bus.publish(`${prefix}.evt.created.deep`, text('2'));
          await waitFor(() => received.tail.length === 2, 'both publishes on >');
          await sleep(100);
          expect(received.exact).toEqual(['1']);
          expect(received.star).toEqual([`${prefix}.evt.created=1`]);
          expect(received.tail.sort()).toEqual(['1', '2']);
          expect(received.other).toEqual([]);
        } finally {
          await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
        }
      });
    });

    describe('streams', () => {
      /** A stream capturing `contract.<suffix>.>`, and that prefix. */
      async function freshStream(
        options: { duplicateWindowMs?: number; maxAgeMs?: number } = {},
      ): Promise<{ stream: string; prefix: string }> {
        const suffix = uniqueSuffix();
        const stream = `CONTRACT_${suffix.toUpperCase()}`;
        const prefix = `contract.${suffix}`;
        await platform.streams.ensureStream({
          name: stream,
          subjects: [`${prefix}.>`],
          ...options,
        });
        return { stream, prefix };
      }

      const consumers: StreamConsumer[] = [];
      afterEach(async () => {
        await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
      });

      it('delivers published messages to a durable consumer, once when acked', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
        const first = await platform.streams.publish(`${prefix}.a`, text('one'), {
          headers: { 'x-k': 'v1' },
        });
        const second = await platform.streams.publish(`${prefix}.b`, text('two'));
        expect(first.stream).toBe(stream);
        expect(first.duplicate).toBe(false);
        expect(second.seq).toBeGreaterThan(first.seq);

        const received: StreamMessage[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-ack', ackWaitMs: 500 },
            async (message) => {
              received.push(message);
              message.ack();
            },
          ),
        );
        await waitFor(() => received.length === 2, 'two messages');
        await sleep(1_200);
        expect(received.map((message) => read(message.data))).toEqual(['one', 'two']);
        expect(received.map((message) => message.subject)).toEqual([`${prefix}.a`, `${prefix}.b`]);
        expect(received.map((message) => message.seq)).toEqual([first.seq, second.seq]);
        expect(received.map((message) => message.deliveryCount)).toEqual([1, 1]);
        expect(received[0]?.headers['x-k']).toBe('v1');
      });

      it('drops messages older than maxAgeMs, also when the limit is set on a stream that exists', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.a`, text('old'));
        // The limit arrives with a later ensure, as it does for a stream made before it existed.
        await platform.streams.ensureStream({
          name: stream,
          subjects: [`${prefix}.>`],
          maxAgeMs: 1_000,
          duplicateWindowMs: 500,
        });
        await sleep(2_500);
        await platform.streams.publish(`${prefix}.b`, text('new'));

        const received: string[] = [];
        consumers.push(
          await platform.streams.consume({ stream, durable: 'contract-aged' }, async (message) => {
            received.push(read(message.data));
            message.ack();
          }),
        );
        await waitFor(() => received.length === 1, 'the new message');
        await sleep(300);
        expect(received).toEqual(['new']);
      });

      it('lets several members join a new durable at the same moment and share its messages', async () => {
        const { stream, prefix } = await freshStream();
        const received: string[] = [];
        const members = await Promise.all(
          [1, 2, 3].map(() =>
            platform.streams.consume({ stream, durable: 'contract-joined' }, async (message) => {
              received.push(read(message.data));
              message.ack();
            }),
          ),
        );
        consumers.push(...members);
        for (const value of ['a', 'b', 'c', 'd']) {
          await platform.streams.publish(`${prefix}.x`, text(value));
        }
        await waitFor(() => received.length === 4, 'four messages');
        await sleep(300);
        expect([...received].sort()).toEqual(['a', 'b', 'c', 'd']);
      });

      it('honours a filter subject', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.skip`, text('skip'));
        await platform.streams.publish(`${prefix}.take`, text('take'));
        const received: string[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-filter', filterSubject: `${prefix}.take` },
            async (message) => {
              received.push(read(message.data));
              message.ack();
            },
          ),
        );
        await waitFor(() => received.length === 1, 'the filtered message');
        await sleep(300);
        expect(received).toEqual(['take']);
      });

      it('stores a message id once within the duplicate window', async () => {
        const { stream, prefix } = await freshStream();
        const first = await platform.streams.publish(`${prefix}.run`, text('first'), {
          messageId: 'event-1',
        });
        const repeat = await platform.streams.publish(`${prefix}.run`, text('repeat'), {
          messageId: 'event-1',
        });
        const other = await platform.streams.publish(`${prefix}.run`, text('other'), {
          messageId: 'event-2',
        });
        expect(first.duplicate).toBe(false);
        expect(repeat.duplicate).toBe(true);
        expect(repeat.seq).toBe(first.seq);
        expect(other.duplicate).toBe(false);

        const received: string[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-dedupe' },
            async (message) => {
              received.push(read(message.data));
              message.ack();
            },
          ),
        );
        await waitFor(() => received.includes('other'), 'the message after the duplicate');
        expect(received).toEqual(['first', 'other']);
      });

      it('redelivers an unacked message to another member after its consumer stops', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.job`, text('job'));
        const config = { stream, durable: 'contract-redeliver', ackWaitMs: 500 };

        const firstDeliveries: StreamMessage[] = [];
        const first = await platform.streams.consume(config, async (message) => {
          firstDeliveries.push(message);
        });
        await waitFor(() => firstDeliveries.length === 1, 'the first delivery');
        await first.stop();

        const secondDeliveries: StreamMessage[] = [];
        consumers.push(
          await platform.streams.consume(config, async (message) => {
            secondDeliveries.push(message);
            message.ack();
          }),
        );
        await waitFor(() => secondDeliveries.length === 1, 'the redelivery');
        expect(read(secondDeliveries[0]?.data ?? new Uint8Array())).toBe('job');
        expect(secondDeliveries[0]?.deliveryCount).toBe(2);
        expect(firstDeliveries).toHaveLength(1);
      });

      it('shares one durable between consumers: each message goes to one of them', async () => {
        const { stream, prefix } = await freshStream();
        const config = { stream, durable: 'contract-shared', ackWaitMs: 5_000 };
        const seen: string[] = [];
        for (let member = 0; member < 2; member += 1) {
          consumers.push(
            await platform.streams.consume(config, async (message) => {
              seen.push(read(message.data));
              message.ack();
            }),
          );
        }
        await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            platform.streams.publish(`${prefix}.item`, text(String(index))),
          ),
        );
        await waitFor(() => seen.length >= 20, 'all 20 messages');
        await sleep(300);
        expect(seen).toHaveLength(20);
        expect(new Set(seen).size).toBe(20);
      });

      it('redelivers after the delay given to nak', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.retry`, text('retry'));
        const deliveries: { at: number; count: number }[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-nak', ackWaitMs: 10_000 },
            async (message) => {
              deliveries.push({ at: Date.now(), count: message.deliveryCount });
              if (message.deliveryCount === 1) message.nak(700);
              else message.ack();
            },
          ),
        );
        await waitFor(() => deliveries.length === 2, 'the delayed redelivery');
        const [first, second] = deliveries;
        expect(first?.count).toBe(1);
        expect(second?.count).toBe(2);
        expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(600);
      });

      it('redelivers soon after a handler throws', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.flaky`, text('flaky'));
        const counts: number[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-throw', ackWaitMs: 30_000 },
            async (message) => {
              counts.push(message.deliveryCount);
              if (message.deliveryCount === 1) throw new Error('transient failure');
              message.ack();
            },
          ),
        );
        await waitFor(() => counts.length === 2, 'the redelivery after a throw', 5_000);
        expect(counts).toEqual([1, 2]);
      });

      it('never redelivers a terminated message', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.bad`, text('bad'));
        await platform.streams.publish(`${prefix}.good`, text('good'));
        const received: string[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-term', ackWaitMs: 400 },
            async (message) => {
              const body = read(message.data);
              received.push(body);
              if (body === 'bad') message.term();
              else message.ack();
            },
          ),
        );
        await waitFor(() => received.length === 2, 'both messages');
        await sleep(1_200);
        expect(received).toEqual(['bad', 'good']);
      });

      it('keeps a message while the handler reports working()', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.long`, text('long'));
        const counts: number[] = [];
        let finished = false;
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-working', ackWaitMs: 600 },
            async (message) => {
              counts.push(message.deliveryCount);
              for (let step = 0; step < 6; step += 1) {
                await sleep(250);
                message.working();
              }
              message.ack();
              finished = true;
            },
          ),
        );
        await waitFor(() => finished, 'the long handler', 10_000);
        await sleep(800);
        expect(counts).toEqual([1]);
      });

      it('gives up after maxDeliver deliveries', async () => {
        const { stream, prefix } = await freshStream();
        await platform.streams.publish(`${prefix}.poison`, text('poison'));
        await platform.streams.publish(`${prefix}.after`, text('after'));
        const received: string[] = [];
        consumers.push(
          await platform.streams.consume(
            { stream, durable: 'contract-max', ackWaitMs: 10_000, maxDeliver: 3 },
            async (message) => {
              const body = read(message.data);
              received.push(`${body}#${message.deliveryCount}`);
              if (body === 'poison') message.nak();
              else message.ack();
            },
          ),
        );
        await waitFor(
          () => received.filter((entry) => entry.startsWith('poison')).length === 3,
          'three deliveries of the poison message',
        );
        await sleep(800);
        expect(received.filter((entry) => entry.startsWith('poison'))).toEqual([
          'poison#1',
          'poison#2',
          'poison#3',
        ]);
        expect(received).toContain('after#1');
      });
    });

    describe('kv', () => {
      const bucketName = (): string => `contract_${uniqueSuffix()}`;

      it("a reader's view waits for the owner to create the bucket, then reads and watches what the owner writes", async () => {
        const name = bucketName();
        const viewing = platform.kv.view(name);
        // The owner comes second, as a service that starts before the bucket's owner does.
        const owned = await platform.kv.bucket(name);
        await owned.put('a', text('1'));
        const view = await viewing;
        expect(view.name).toBe(name);
        expect(read((await view.get('a'))?.value ?? new Uint8Array())).toBe('1');
        expect(await view.keys()).toEqual(['a']);
        const seen: string[] = [];
        const watcher = await view.watch((event) => {
          if (event.kind === 'put') seen.push(`${event.entry.key}=${read(event.entry.value)}`);
        });
        await owned.put('b', text('2'));
        await waitFor(() => seen.includes('b=2'), "the owner's second put");
        await watcher.stop();
        expect(seen).toEqual(['a=1', 'b=2']);
      });

      it('lets exactly one of 50 concurrent creates of a key win', async () => {
        const bucket = await platform.kv.bucket(bucketName());
        const results = await Promise.allSettled(
          Array.from({ length: 50 }, (_, index) => bucket.create('claim', text(String(index)))),
        );
        const winners = results.filter((result) => result.status === 'fulfilled');
        const losers = results.filter(
          (result): result is PromiseRejectedResult => result.status === 'rejected',
        );
        expect(winners).toHaveLength(1);
        expect(losers).toHaveLength(49);
        for (const loser of losers) expect(loser.reason).toBeInstanceOf(KvConflictError);
        const entry = await bucket.get('claim');
        const winnerIndex = results.findIndex((result) => result.status === 'fulfilled');
        expect(read(entry?.value ?? new Uint8Array())).toBe(String(winnerIndex));
      });

      it('updates only on the current revision', async () => {
        const bucket = await platform.kv.bucket(bucketName());
        const created = await bucket.create('counter', text('1'));
        const updated = await bucket.update('counter', text('2'), created);
        expect(updated).toBeGreaterThan(created);
        await expect(bucket.update('counter', text('stale'), created)).rejects.toBeInstanceOf(
          KvConflictError,
        );
        const entry = await bucket.get('counter');
        expect(entry).toEqual({ key: 'counter', value: text('2'), revision: updated });
      });

      it('puts, lists, deletes and creates again after a delete', async () => {
        const bucket = await platform.kv.bucket(bucketName());
        const first = await bucket.put('a', text('1'));
        const second = await bucket.put('b', text('2'));
        expect(second).toBeGreaterThan(first);
        expect((await bucket.keys()).sort()).toEqual(['a', 'b']);
        await expect(bucket.create('a', text('again'))).rejects.toBeInstanceOf(KvConflictError);

        await bucket.delete('a');
        expect(await bucket.get('a')).toBeNull();
        expect(await bucket.keys()).toEqual(['b']);
        const recreated = await bucket.create('a', text('again'));
        expect(recreated).toBeGreaterThan(second);
        expect(read((await bucket.get('a'))?.value ?? new Uint8Array())).toBe('again');
        expect(await bucket.get('missing')).toBeNull();
      });

      it('watches: replays current values, then reports ready, then live changes', async () => {
        const bucket = await platform.kv.bucket(bucketName());
        await bucket.put('a', text('1'));
        await bucket.put('b', text('2'));
        await bucket.put('gone', text('x'));
        await bucket.delete('gone');

        const log: string[] = [];
        const describeEvent = (event: KvWatchEvent): string =>
          event.kind === 'put'
            ? `put ${event.entry.key}=${read(event.entry.value)}`
            : `delete ${event.key}`;
        let ready = false;
        const watcher = await bucket.watch(
          (event) => {
            log.push(describeEvent(event));
          },
          () => {
            ready = true;
            log.push('ready');
          },
        );
        try {
          await waitFor(() => ready, 'the end of the replay');
          await bucket.put('c', text('3'));
          await bucket.delete('a');
          await waitFor(() => log.includes('delete a'), 'the live delete');
          expect(log).toEqual(['put a=1', 'put b=2', 'ready', 'put c=3', 'delete a']);
        } finally {
          await watcher.stop();
        }
      });

      it('expires entries ttlMs after their last write', async () => {
        const bucket = await platform.kv.bucket(bucketName(), { ttlMs: 1_000 });
        await bucket.create('lease', text('held'));
        expect(read((await bucket.get('lease'))?.value ?? new Uint8Array())).toBe('held');
        await waitFor(async () => (await bucket.get('lease')) === null, 'the expiry', 5_000);
        expect(await bucket.keys()).toEqual([]);
        await bucket.create('lease', text('again'));
        expect(read((await bucket.get('lease'))?.value ?? new Uint8Array())).toBe('again');
      });

      it('keeps the TTL of a bucket opened again without options', async () => {
        const name = bucketName();
        await platform.kv.bucket(name, { ttlMs: 1_000 });
        const reopened = await platform.kv.bucket(name);
        await reopened.create('lease', text('held'));
        await waitFor(async () => (await reopened.get('lease')) === null, 'the expiry', 5_000);
      });
    });

    describe('objects', () => {
      it('round-trips 10 MiB streamed in from an async generator', async () => {
        const bucket = `contract_${uniqueSuffix()}`;
        const content = randomBytes(10 * 1024 * 1024);
        const expectedHash = createHash('sha256').update(content).digest('hex');

        const info = await platform.objects.put(
          bucket,
          'docs/report.bin',
          chunksOf(content, 64 * 1024),
          {
            contentType: 'application/octet-stream',
          },
        );
        expect(info).toEqual({
          bucket,
          name: 'docs/report.bin',
          size: content.length,
          contentType: 'application/octet-stream',
        });
        expect(await platform.objects.info(bucket, 'docs/report.bin')).toEqual(info);

        const stored = await platform.objects.get(bucket, 'docs/report.bin');
        expect(stored?.info).toEqual(info);
        const roundTrip = await sha256Of(stored?.content ?? chunksOf(new Uint8Array(), 1));
        expect(roundTrip).toEqual({ hash: expectedHash, size: content.length });

        await platform.objects.delete(bucket, 'docs/report.bin');
        expect(await platform.objects.get(bucket, 'docs/report.bin')).toBeNull();
        expect(await platform.objects.info(bucket, 'docs/report.bin')).toBeNull();
      });

      it('replaces an object put twice under one name and answers null for unknown names', async () => {
        const bucket = `contract_${uniqueSuffix()}`;
        await platform.objects.put(bucket, 'note.txt', chunksOf(text('first version'), 4), {
          contentType: 'text/plain',
        });
        const second = await platform.objects.put(bucket, 'note.txt', chunksOf(text('second'), 4));
        expect(second.size).toBe(6);
        const stored = await platform.objects.get(bucket, 'note.txt');
        const chunks: Uint8Array[] = [];
        for await (const chunk of stored?.content ?? []) chunks.push(chunk);
        expect(Buffer.concat(chunks).toString()).toBe('second');
        expect(await platform.objects.info(bucket, 'absent.txt')).toBeNull();
      });

      it('deletes objects older than the max age, also when it is set on a bucket that exists', async () => {
        const bucket = `contract_${uniqueSuffix()}`;
        await platform.objects.put(bucket, 'old.txt', chunksOf(text('old'), 4));
        // The max age arrives with a later ensure, as it does for a bucket made before it existed.
        await platform.objects.ensureBucket(bucket, { maxAgeMs: 1_000 });
        await sleep(2_500);
        await platform.objects.put(bucket, 'new.txt', chunksOf(text('new'), 4));
        expect(await platform.objects.info(bucket, 'old.txt')).toBeNull();
        expect(await platform.objects.get(bucket, 'old.txt')).toBeNull();
        expect(await platform.objects.info(bucket, 'new.txt')).toMatchObject({ size: 3 });

        // Ensured without a max age, the bucket keeps its objects for good again.
        await platform.objects.ensureBucket(bucket);
        await sleep(1_500);
        expect(await platform.objects.info(bucket, 'new.txt')).toMatchObject({ size: 3 });
      });
    });

    describe('sql', () => {
      it('applies migrations once, twice and concurrently without harm', async () => {
        const schema = `contract_${uniqueSuffix()}`;
        const migrationsFolder = migrationsFor(schema);
        await Promise.all([
          platform.sql.migrate({ schema, migrationsFolder }),
          platform.sql.migrate({ schema, migrationsFolder }),
        ]);
        await platform.sql.migrate({ schema, migrationsFolder });

        await platform.sql.db.execute(
          sql`insert into ${sql.identifier(schema)}.notes (body) values (${'hello'})`,
        );
        const notes = NoteRows.parse(
          await platform.sql.db.execute(sql`select id, body from ${sql.identifier(schema)}.notes`),
        );
        expect(notes.rows.map((row) => row.body)).toEqual(['hello']);

        const journal = CountRows.parse(
          await platform.sql.db.execute(
            sql`select count(*) as count from ${sql.identifier(schema)}.__migrations`,
          ),
        );
        expect(journal.rows[0]?.count).toBe(1);
      });
    });

    const restart = factory.restart?.bind(factory);
    if (restart) {
      describe('after a restart', () => {
        it('keeps unacked stream messages, KV values, objects and SQL rows', async () => {
          let current = await factory.create();
          try {
            const suffix = uniqueSuffix();
            const stream = `CONTRACT_${suffix.toUpperCase()}`;
            const prefix = `contract.${suffix}`;
            await current.streams.ensureStream({ name: stream, subjects: [`${prefix}.>`] });
            await current.streams.publish(`${prefix}.acked`, text('acked'));
            await current.streams.publish(`${prefix}.pending`, text('pending'));
            const config = { stream, durable: 'contract-restart', ackWaitMs: 60_000 };
            const beforeRestart: string[] = [];
            const consumer = await current.streams.consume(config, async (message) => {
              const body = read(message.data);
              beforeRestart.push(body);
              if (body === 'acked') message.ack();
            });
            await waitFor(() => beforeRestart.length === 2, 'both messages before the restart');
            await consumer.stop();

            const bucket = await current.kv.bucket(`contract_${suffix}`);
            const revision = await bucket.put('kept', text('value'));
            await current.objects.put(
              `contract_${suffix}`,
              'kept.bin',
              chunksOf(text('object'), 3),
              {
                contentType: 'text/plain',
              },
            );
            const schema = `contract_${suffix}`;
            const migrationsFolder = migrationsFor(schema);
            await current.sql.migrate({ schema, migrationsFolder });
            await current.sql.db.execute(
              sql`insert into ${sql.identifier(schema)}.notes (body) values (${'kept'})`,
            );

            current = await restart(current);

            const afterRestart: string[] = [];
            const resumed = await current.streams.consume(config, async (message) => {
              afterRestart.push(read(message.data));
              message.ack();
            });
            try {
              await waitFor(() => afterRestart.length === 1, 'the redelivery after the restart');
              await sleep(300);
              expect(afterRestart).toEqual(['pending']);
            } finally {
              await resumed.stop();
            }

            const reopened = await current.kv.bucket(`contract_${suffix}`);
            expect(await reopened.get('kept')).toEqual({
              key: 'kept',
              value: text('value'),
              revision,
            });
            expect(await reopened.put('next', text('n'))).toBeGreaterThan(revision);

            const object = await current.objects.get(`contract_${suffix}`, 'kept.bin');
            expect(object?.info).toEqual({
              bucket: `contract_${suffix}`,
              name: 'kept.bin',
              size: 6,
              contentType: 'text/plain',
            });

            await current.sql.migrate({ schema, migrationsFolder });
            const notes = NoteRows.parse(
              await current.sql.db.execute(
                sql`select id, body from ${sql.identifier(schema)}.notes`,
              ),
            );
            expect(notes.rows.map((row) => row.body)).toEqual(['kept']);
          } finally {
            await current.close();
          }
        });
      });
    }
  });
}
