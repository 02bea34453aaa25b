import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { createDistributedPlatform } from './distributed';
import { decodeJson, encodeJson } from './json-codec';
import { withNamespace } from './namespace';
import type { Platform, StreamMessage } from './platform';
import { deleteStreams, recordingCreatedStreams } from './testing';

const natsUrl = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const namespace = () => `n${randomBytes(5).toString('hex')}`;

describe('withNamespace on one NATS server', () => {
  let connected: Platform;
  let first: Platform;
  let second: Platform;
  /** What the namespaces created on the shared server, under their prefixed names. */
  const createdStreams = new Set<string>();

  beforeAll(async () => {
    connected = await createDistributedPlatform({
      natsUrl,
      serviceName: 'namespace-spec',
      logger: pino({ level: 'silent' }),
    });
    const recording = recordingCreatedStreams(connected, createdStreams);
    first = withNamespace(recording, namespace());
    second = withNamespace(recording, namespace());
  });
  afterAll(async () => {
    await connected.close();
    await deleteStreams(natsUrl, createdStreams);
  });

  test('requests reach only the server of their own namespace, which sees the plain subject', async () => {
    const seen: string[] = [];
    const subscriptions = [first, second].map((platform, index) =>
      platform.bus.serve('storage.api.get_me.v1', async (message) => {
        seen.push(message.subject);
        return { data: encodeJson({ answeredBy: index }) };
      }),
    );
    try {
      const answers = await Promise.all(
        [first, second, first].map(async (platform) =>
          decodeJson(
            (
              await platform.bus.request('storage.api.get_me.v1', encodeJson({}), {
                timeoutMs: 2000,
              })
            ).data,
          ),
        ),
      );
      expect(answers).toEqual([{ answeredBy: 0 }, { answeredBy: 1 }, { answeredBy: 0 }]);
      expect(seen).toEqual([
        'storage.api.get_me.v1',
        'storage.api.get_me.v1',
        'storage.api.get_me.v1',
      ]);
    } finally {
      await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
    }
  });

  test('streams and KV buckets of two namespaces do not mix', async () => {
    for (const platform of [first, second]) {
      await platform.streams.ensureStream({ name: 'EVENTS', subjects: ['events.>'] });
    }
    await first.streams.publish('events.one', encodeJson({ from: 'first' }), {
      messageId: 'same-id',
    });
    const ack = await second.streams.publish('events.one', encodeJson({ from: 'second' }), {
      messageId: 'same-id',
    });
    expect(ack).toMatchObject({ duplicate: false, stream: 'EVENTS' });

    const received = await new Promise<StreamMessage>((resolve) => {
      void second.streams.consume(
        { stream: 'EVENTS', durable: 'namespace-spec' },
        async (message) => {
          message.ack();
          resolve(message);
        },
      );
    });
    expect(received.subject).toBe('events.one');
    expect(decodeJson(received.data)).toEqual({ from: 'second' });

    const firstBucket = await first.kv.bucket('directory');
    const secondBucket = await second.kv.bucket('directory');
    await firstBucket.create('workspace.a', encodeJson(1));
    expect(await secondBucket.get('workspace.a')).toBeNull();
    await expect(secondBucket.create('workspace.a', encodeJson(2))).resolves.toBeGreaterThan(0);
  });

  test('a namespace that is not lowercase alphanumeric is refused', () => {
    expect(() => withNamespace(connected, 'Bad.Name')).toThrow(/namespace must match/);
  });
});
