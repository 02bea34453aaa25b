import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { startInMemoryTracing } from './testing';
import { currentTraceId, markSpanFailed, runInServerSpan, runInSpan } from './spans';
import { startTelemetry, type Telemetry } from './telemetry';

const INCOMING_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_PARENT_ID = '00f067aa0ba902b7';

interface OtlpExportRequest {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: { name: string; traceId: string; parentSpanId?: string }[] }[];
  }[];
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

// Telemetry starts once per process (module registry), so this file starts it once, with both
// an extra in-memory processor and a real OTLP/HTTP collector on a local port.
describe('startTelemetry', () => {
  const exports: { path: string | undefined; body: OtlpExportRequest }[] = [];
  const collector: Server = createServer((request, response) => {
    void readBody(request).then((body) => {
      exports.push({ path: request.url, body: JSON.parse(body) as OtlpExportRequest });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const memory = new InMemorySpanExporter();
  const memoryProcessor = new SimpleSpanProcessor(memory);
  let telemetry: Telemetry;

  beforeAll(async () => {
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    telemetry = startTelemetry({
      serviceName: 'gateway',
      otlpEndpoint: `http://127.0.0.1:${port}`,
      spanProcessors: [memoryProcessor],
    });
  });

  afterAll(async () => {
    await telemetry.shutdown();
    await new Promise<void>((resolve) => collector.close(() => resolve()));
  });

  it('continues an incoming traceparent and propagates W3C trace context onwards', async () => {
    const outgoing: Record<string, string> = {};
    const traceId = await runInServerSpan(
      'GET /v1/me',
      { TraceParent: `00-${INCOMING_TRACE_ID}-${INCOMING_PARENT_ID}-01` },
      async () => {
        propagation.inject(context.active(), outgoing);
        return currentTraceId();
      },
    );
    expect(traceId).toBe(INCOMING_TRACE_ID);
    expect(outgoing.traceparent).toMatch(new RegExp(`^00-${INCOMING_TRACE_ID}-[0-9a-f]{16}-01$`));

    // Span export waits for the resource's asynchronous attributes (host id).
    await memoryProcessor.forceFlush();
    const span = memory.getFinishedSpans().find((candidate) => candidate.name === 'GET /v1/me');
    expect(span?.parentSpanContext?.spanId).toBe(INCOMING_PARENT_ID);
    expect(span?.spanContext().spanId).toBe(outgoing.traceparent?.split('-')[2]);
    expect(span?.resource.attributes['service.name']).toBe('gateway');
  });

  it('starts a new trace when the request carries none, and marks failures', async () => {
    let traceId: string | undefined;
    await expect(
      runInServerSpan('POST /v1/workspaces', {}, async () => {
        traceId = currentTraceId();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe(INCOMING_TRACE_ID);
    expect(currentTraceId()).toBeUndefined();

    await memoryProcessor.forceFlush();
    const span = memory.getFinishedSpans().find((s) => s.name === 'POST /v1/workspaces');
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('records child spans of the active one: calls out, and failures answered rather than thrown', async () => {
    await runInServerSpan('POST /v1/chats', {}, () =>
      runInSpan(
        'chat model call',
        { role: 'client', attributes: { 'gen_ai.request.model': 'scripted' } },
        async (span) => markSpanFailed(span, 'the provider answered 500'),
      ),
    );
    await expect(
      runInServerSpan('POST /v1/steps', {}, () =>
        runInSpan('workflow step delay', {}, async () => {
          throw new Error('step broke');
        }),
      ),
    ).rejects.toThrow('step broke');

    await memoryProcessor.forceFlush();
    const byName = (name: string) => memory.getFinishedSpans().find((span) => span.name === name);
    const call = byName('chat model call');
    expect(call?.parentSpanContext?.spanId).toBe(byName('POST /v1/chats')?.spanContext().spanId);
    expect(call?.kind).toBe(SpanKind.CLIENT);
    expect(call?.attributes).toEqual({ 'gen_ai.request.model': 'scripted' });
    expect(call?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'the provider answered 500',
    });
    const step = byName('workflow step delay');
    expect(step?.kind).toBe(SpanKind.INTERNAL);
    expect(step?.parentSpanContext?.spanId).toBe(byName('POST /v1/steps')?.spanContext().spanId);
    expect(step?.status.code).toBe(SpanStatusCode.ERROR);
    expect(step?.events.map((event) => event.name)).toEqual(['exception']);
  });

  it('refuses a second start in the same process', () => {
    expect(() => startTelemetry({ serviceName: 'gateway' })).toThrow(/already started/);
    expect(() => startInMemoryTracing()).toThrow(/already started/);
  });

  it('exports the spans over OTLP/HTTP to <endpoint>/v1/traces by shutdown', async () => {
    const traceId = await runInServerSpan('POST /webhooks/:id', {}, async () => currentTraceId());
    // Shutting down flushes the batch processor; a second call is harmless.
    await telemetry.shutdown();
    await telemetry.shutdown();

    expect(new Set(exports.map((request) => request.path))).toEqual(new Set(['/v1/traces']));
    const resourceSpans = exports.flatMap((request) => request.body.resourceSpans);
    expect(resourceSpans[0]?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'gateway' },
    });
    const spans = resourceSpans.flatMap((resource) =>
      resource.scopeSpans.flatMap((scope) => scope.spans),
    );
    expect(spans.map((span) => span.name).sort()).toEqual([
      'GET /v1/me',
      'POST /v1/chats',
      'POST /v1/steps',
      'POST /v1/workspaces',
      'POST /webhooks/:id',
      'chat model call',
      'workflow step delay',
    ]);
    expect(spans).toContainEqual(expect.objectContaining({ name: 'POST /webhooks/:id', traceId }));
  });
});
