import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, subjectTemplate } from '@wap/contracts';
import { encodeJson, type Platform, type StreamMessage } from '@wap/platform';
import { callApi, serveApi, withMetrics } from '@wap/bus-protocol';
import {
  asBusPrincipal,
  eventually,
  testLogger,
  testRuntimes,
  type RuntimeUnderTest,
} from '@wap/testing';
import { metrics, platformMetrics } from './metrics';

/** A histogram's count, or a counter's value, for exactly these labels. */
async function sampleOf(
  metric: { get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }> },
  labels: Record<string, string>,
): Promise<number> {
  const { values } = await metric.get();
  const matching = values.filter(
    (value) =>
      (value.metricName === undefined || value.metricName.endsWith('_count')) &&
      Object.entries(labels).every(
        ([name, wanted]) => (value.labels as Record<string, unknown>)[name] === wanted,
      ),
  );
  return matching.reduce((sum, value) => sum + value.value, 0);
}

async function lagOf(stream: string, consumer: string): Promise<number | undefined> {
  const { values } = await metrics.streamConsumerLag.get();
  return values.find(
    (value) => value.labels['stream'] === stream && value.labels['consumer'] === consumer,
  )?.value;
}

describe('subjectTemplate', () => {
  test.each([
    ['storage.api.get_me.v1', 'storage.api.get_me.v1'],
    ['chat.api.control_turn.v1.4b7c1f0e-7f7a-4c1e-9a51-0f1b1d2c3e4f', 'chat.api.control_turn.v1'],
    ['t1a2b3c.workflow.cmd.start_run.v1', 'workflow.cmd.start_run.v1'],
    ['t1a2b3c.chat.api.control_turn.v2.abc', 'chat.api.control_turn.v2'],
    ['_INBOX.abcdef.123', 'other'],
    ['contract.xyz.nobody', 'other'],
  ])('%s → %s', (subject, template) => {
    expect(subjectTemplate(subject)).toBe(template);
  });
});

describe.each(testRuntimes('metrics-spec'))('withMetrics on the %s runtime', (_label, start) => {
  let runtime: RuntimeUnderTest;
  let platform: Platform;
  /** Unique per run: the registry is the process's, shared by both runtimes of this file. */
  const tag = randomBytes(4).toString('hex').replace(/\d/g, 'x');
  const subject = (name: string) => `metricstest.api.${name}_${tag}.v1`;
  const logger = testLogger();

  beforeAll(async () => {
    runtime = await start();
    platform = withMetrics(runtime.platform, platformMetrics);
  });
  afterAll(async () => {
    await runtime.cleanup();
  });

  test('both sides of a bus request are timed by subject template and outcome', async () => {
    const Request = z.object({ kind: z.enum(['ok', 'user', 'bug']) });
    const trusted = await asBusPrincipal(platform, 'storage', {
      subjects: [
        { subject: subject('answer'), server: 'storage', callers: ['storage'], user: false },
      ],
    });
    const served = serveApi(
      trusted.bus,
      { subject: subject('answer'), request: Request, reply: z.unknown() },
      async ({ kind }) => {
        if (kind === 'user') throw new AppError('NOT_FOUND', 'Nothing here');
        if (kind === 'bug') throw new Error('a bug');
        return { done: true };
      },
      { queue: 'metricstest', logger },
    );
    // Answers only once the caller has given up: unsubscribing waits for handlers in flight.
    let answerLate!: () => void;
    const late = new Promise<void>((resolve) => {
      answerLate = resolve;
    });
    const silent = platform.bus.serve(subject('silent'), async () => {
      await late;
      return { data: encodeJson({}) };
    });
    try {
      const call = (kind: string) =>
        callApi(
          trusted.bus,
          { subject: subject('answer'), request: z.unknown(), reply: z.unknown() },
          { kind },
          { timeoutMs: 5_000 },
        );
      await call('ok');
      await expect(call('user')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await expect(call('bug')).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
      await expect(
        platform.bus.request(subject('nobody'), encodeJson({}), { timeoutMs: 1_000 }),
      ).rejects.toMatchObject({ name: 'NoRespondersError' });
      await expect(
        platform.bus.request(subject('silent'), encodeJson({}), { timeoutMs: 200 }),
      ).rejects.toMatchObject({ name: 'BusTimeoutError' });

      const count = (name: string, side: string, outcome: string) =>
        sampleOf(metrics.busRequestDuration, { subject: subject(name), side, outcome });
      for (const side of ['client', 'server']) {
        expect(await count('answer', side, 'ok')).toBe(1);
        expect(await count('answer', side, 'user_error')).toBe(1);
        expect(await count('answer', side, 'error')).toBe(1);
      }
      expect(await count('nobody', 'client', 'no_responders')).toBe(1);
      expect(await count('silent', 'client', 'timeout')).toBe(1);
    } finally {
      answerLate();
      await served.unsubscribe();
      await silent.unsubscribe();
    }
  });

  test('stream messages are counted as settled, redeliveries apart, and lag is read from the stream', async () => {
    const stream = `METRICSTEST_${tag.toUpperCase()}`;
    const durable = `metricstest-${tag}`;
    const eventSubject = `metricstest.evt.thing_${tag}.v1`;
    await platform.streams.ensureStream({ name: stream, subjects: [eventSubject] });
    const total = 40;
    for (let index = 0; index < total; index += 1) {
      await platform.streams.publish(eventSubject, encodeJson({ index }));
    }

    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const settle = async (message: StreamMessage) => {
      await released;
      const { index } = JSON.parse(Buffer.from(message.data).toString()) as { index: number };
      if (index === 0) message.term();
      else if (index === 1 && message.deliveryCount === 1) message.nak();
      else if (index === 2 && message.deliveryCount === 1) throw new Error('retry me');
      else message.ack();
    };
    const consumer = await platform.streams.consume({ stream, durable, ackWaitMs: 30_000 }, settle);
    try {
      // The handler holds what it was given: the rest of the stream waits, undelivered.
      await eventually(async () => {
        expect(await lagOf(stream, durable)).toBeGreaterThan(0);
      });
      release();
      const labels = { stream, consumer: durable };
      await eventually(async () => {
        expect(await sampleOf(metrics.streamMessages, { ...labels, outcome: 'acked' })).toBe(
          total - 1,
        );
      });
      expect(await sampleOf(metrics.streamMessages, { ...labels, outcome: 'dropped' })).toBe(1);
      expect(await sampleOf(metrics.streamMessages, { ...labels, outcome: 'retried' })).toBe(2);
      expect(await sampleOf(metrics.streamRedeliveries, labels)).toBe(2);
      expect(await lagOf(stream, durable)).toBe(0);
    } finally {
      release();
      await consumer.stop();
    }
    // A stopped consumer is no longer read.
    expect(await lagOf(stream, durable)).toBeUndefined();
  });
});
