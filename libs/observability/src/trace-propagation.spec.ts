import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { DestinationStream } from 'pino';
import { z } from 'zod';
import {
  createEmbeddedPlatform,
  decodeJson,
  encodeJson,
  type Platform,
  type StreamConsumer,
  type Subscription,
} from '@wap/platform';
import {
  activeTraceparent,
  callApi,
  continueTrace,
  injectTraceHeaders,
  serveApi,
  withTraceFromHeaders,
} from '@wap/bus-protocol';
import { asBusPrincipal } from '@wap/testing';
import { startInMemoryTracing, type InMemoryTracing } from './testing';
import { createLogger } from './logger';
import { currentTraceId, runInServerSpan } from './spans';

const API_SUBJECT = 'tracetest.api.create_thing.v1';
const EVENT_SUBJECT = 'tracetest.evt.thing_created.v1';
const STREAM = 'TRACETEST_EVENTS';
const CONSUMER_SPAN = `${EVENT_SUBJECT} consume`;
const INCOMING_TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const INCOMING_PARENT_ID = 'b7ad6b7169203331';

const ThingRequest = z.object({ name: z.string() });
const ThingReply = z.object({ id: z.string() });
const ThingCreated = z.object({ id: z.string(), name: z.string() });

interface Handled {
  traceId: string | undefined;
  event: z.infer<typeof ThingCreated>;
}

// One request crosses the three hops a real one does: the gateway's HTTP server span, a bus
// request to a service (serveApi), and a stream event the service publishes for a consumer.
// The bus and stream are the real embedded platform; only span export is in memory.
describe('trace propagation: gateway → service → stream consumer', () => {
  let tracing: InMemoryTracing;
  let dataDir: string;
  let platform: Platform;
  let served: Subscription;
  let consumer: StreamConsumer;
  const logLines: string[] = [];
  const destination: DestinationStream = { write: (line: string) => void logLines.push(line) };
  const logger = createLogger({ service: 'tracetest', level: 'info', destination });
  const waiting = new Map<string, (handled: Handled) => void>();

  beforeAll(async () => {
    tracing = startInMemoryTracing();
    dataDir = await mkdtemp(path.join(tmpdir(), 'wap-trace-'));
    // The service both asks and answers: one principal, serving a subject of this spec's own.
    platform = await asBusPrincipal(await createEmbeddedPlatform({ dataDir, logger }), 'storage', {
      logger,
      subjects: [{ subject: API_SUBJECT, server: 'storage', callers: ['storage'], user: false }],
    });
    await platform.streams.ensureStream({ name: STREAM, subjects: ['tracetest.evt.>'] });

    served = serveApi(
      platform.bus,
      { subject: API_SUBJECT, request: ThingRequest, reply: z.unknown() },
      async ({ name }) => {
        const id = platform.ids.uuid();
        await platform.streams.publish(EVENT_SUBJECT, encodeJson({ id, name }), {
          messageId: id,
          headers: injectTraceHeaders(),
        });
        return { id };
      },
      { queue: 'tracetest', logger },
    );

    consumer = await platform.streams.consume(
      { stream: STREAM, durable: 'tracetest-things' },
      (message) =>
        withTraceFromHeaders(message.headers, CONSUMER_SPAN, async () => {
          const event = ThingCreated.parse(decodeJson(message.data));
          logger.info({ thing: event.id }, 'thing created');
          message.ack();
          waiting.get(event.id)?.({ traceId: currentTraceId(), event });
        }),
    );
  });

  afterAll(async () => {
    await consumer.stop();
    await served.unsubscribe();
    await platform.close();
    await tracing.shutdown();
    await rm(dataDir, { recursive: true, force: true });
  });

  beforeEach(() => {
    tracing.exporter.reset();
    logLines.length = 0;
  });

  /** Sends one request through the three hops and waits until the consumer handled its event. */
  async function createThing(
    name: string,
    headers: Record<string, string>,
  ): Promise<{ serverTraceId: string | undefined; handled: Handled }> {
    const { id, serverTraceId } = await runInServerSpan('POST /things', headers, async () => ({
      serverTraceId: currentTraceId(),
      ...(await callApi(
        platform.bus,
        { subject: API_SUBJECT, request: z.unknown(), reply: ThingReply },
        { name },
        { timeoutMs: 5000 },
      )),
    }));
    const handled = await new Promise<Handled>((resolve) => {
      waiting.set(id, resolve);
    });
    waiting.delete(id);
    return { serverTraceId, handled };
  }

  /** The spans of one request, each found by name and kind. */
  function spansOf(traceId: string | undefined): Record<string, ReadableSpan> {
    const byName: Record<string, ReadableSpan> = {};
    for (const span of tracing.spans()) {
      if (span.spanContext().traceId === traceId) byName[`${span.name}|${span.kind}`] = span;
    }
    return byName;
  }

  it('keeps one trace, chained parent to child, from the HTTP span to the stream consumer', async () => {
    const { serverTraceId, handled } = await createThing('first', {});
    expect(serverTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(handled.traceId).toBe(serverTraceId);

    const spans = spansOf(serverTraceId);
    const server = spans[`POST /things|${SpanKind.SERVER}`];
    const request = spans[`${API_SUBJECT}|${SpanKind.PRODUCER}`];
    const handler = spans[`${API_SUBJECT}|${SpanKind.CONSUMER}`];
    const streamConsumer = spans[`${CONSUMER_SPAN}|${SpanKind.CONSUMER}`];
    expect([server, request, handler, streamConsumer].every(Boolean)).toBe(true);

    expect(server?.parentSpanContext).toBeUndefined();
    expect(request?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(handler?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(streamConsumer?.parentSpanContext?.spanId).toBe(handler?.spanContext().spanId);
    expect(tracing.spans().every((span) => span.spanContext().traceId === serverTraceId)).toBe(
      true,
    );
  });

  it('continues a stored traceparent later, whatever context is active then', async () => {
    // A run row keeps the traceparent of the handler that asked for it; a timer or another
    // request's batch executes it.
    const stored = await runInServerSpan('POST /things', {}, async () => activeTraceparent());
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const asking = tracing.spans().find((span) => span.name === 'POST /things');
    expect(stored).toBe(`00-${asking?.spanContext().traceId}-${asking?.spanContext().spanId}-01`);
    const askingTraceId = asking?.spanContext().traceId;

    const otherTraceId = await runInServerSpan('POST /others', {}, async () => {
      const continued = await continueTrace(stored, 'later work', { 'wap.thing': 't1' }, async () =>
        currentTraceId(),
      );
      expect(continued).toBe(askingTraceId);
      const fresh = await continueTrace(null, 'unasked work', {}, async () => currentTraceId());
      expect(fresh).toMatch(/^[0-9a-f]{32}$/);
      expect(fresh).not.toBe(askingTraceId);
      return currentTraceId();
    });
    expect(otherTraceId).not.toBe(askingTraceId);

    const later = tracing.spans().find((span) => span.name === 'later work');
    expect(later?.spanContext().traceId).toBe(askingTraceId);
    expect(later?.parentSpanContext?.spanId).toBe(asking?.spanContext().spanId);
    expect(later?.attributes).toEqual({ 'wap.thing': 't1' });
    const unasked = tracing.spans().find((span) => span.name === 'unasked work');
    expect(unasked?.parentSpanContext).toBeUndefined();
    expect(activeTraceparent()).toBeNull();
  });

  it('continues the trace a caller started, and logs the consumer line under it', async () => {
    const { serverTraceId, handled } = await createThing('second', {
      traceparent: `00-${INCOMING_TRACE_ID}-${INCOMING_PARENT_ID}-01`,
    });
    expect(serverTraceId).toBe(INCOMING_TRACE_ID);
    expect(handled.traceId).toBe(INCOMING_TRACE_ID);
    const server = spansOf(INCOMING_TRACE_ID)[`POST /things|${SpanKind.SERVER}`];
    expect(server?.parentSpanContext?.spanId).toBe(INCOMING_PARENT_ID);

    const consumerSpan = spansOf(INCOMING_TRACE_ID)[`${CONSUMER_SPAN}|${SpanKind.CONSUMER}`];
    const lines = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.find((line) => line.msg === 'thing created')).toMatchObject({
      service: 'tracetest',
      thing: handled.event.id,
      trace_id: INCOMING_TRACE_ID,
      span_id: consumerSpan?.spanContext().spanId,
    });
  });
});
