import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';

/** One span as an OTLP/HTTP exporter delivered it, with the `service.name` of its resource. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Absent for a trace's root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The base endpoint to give exporters as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every span received so far, in arrival order. */
  spans(): ReceivedSpan[];
  /** Export requests refused (not POST /v1/traces, or not OTLP/JSON), as `METHOD path content-type`. */
  refused(): string[];
  close(): Promise<void>;
}

/** OTLP/JSON AnyValue: exactly one of these fields is set. */
const AnyValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.object({ stringValue: z.string() }).transform((value) => value.stringValue),
    z.object({ boolValue: z.boolean() }).transform((value) => value.boolValue),
    // 64-bit integers travel as strings in OTLP/JSON, smaller ones as numbers.
    z.object({ intValue: z.union([z.number(), z.string()]) }).transform((v) => Number(v.intValue)),
    z.object({ doubleValue: z.number() }).transform((value) => value.doubleValue),
    z
      .object({ arrayValue: z.object({ values: z.array(AnyValue).default([]) }) })
      .transform((value) => value.arrayValue.values),
    z.object({}).transform(() => null),
  ]),
);
const KeyValues = z
  .array(z.object({ key: z.string(), value: AnyValue }))
  .default([])
  .transform((pairs) => Object.fromEntries(pairs.map(({ key, value }) => [key, value])));
const HexId = z.string().regex(/^[0-9a-f]*$/);

/**
 * ExportTraceServiceRequest in the OTLP/JSON encoding: ids as lower-case hex (not base64, as
 * the protobuf JSON mapping would have them), enums as numbers.
 */
const ExportTraceServiceRequest = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: KeyValues }).default({ attributes: {} }),
        scopeSpans: z
          .array(
            z.object({
              spans: z
                .array(
                  z.object({
                    traceId: HexId.length(32),
                    spanId: HexId.length(16),
                    parentSpanId: HexId.optional(),
                    name: z.string(),
                    kind: z.number().int(),
                    attributes: KeyValues,
                    status: z.object({ code: z.number().int().default(0) }).default({ code: 0 }),
                  }),
                )
                .default([]),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body;
}

/**
 * A real OTLP/HTTP trace receiver on a free local port: it accepts `POST /v1/traces` in the
 * OTLP/JSON encoding (what `@opentelemetry/exporter-trace-otlp-http` sends, gzipped or not),
 * decodes every span and answers an empty ExportTraceServiceResponse, as a collector does.
 * Anything else is refused with 4xx and listed, so an exporter that changed its encoding fails
 * the test instead of silently delivering nothing.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const refused: string[] = [];

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const contentType = request.headers['content-type'] ?? '';
    const refuse = (status: number, message: string) => {
      refused.push(`${request.method} ${request.url} ${contentType}`);
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ code: 3, message }));
    };
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      refuse(404, 'only POST /v1/traces is served');
      return;
    }
    if (!contentType.startsWith('application/json')) {
      refuse(415, 'only the OTLP/JSON encoding is decoded here');
      return;
    }
    const parsed = ExportTraceServiceRequest.safeParse(
      JSON.parse((await readBody(request)).toString('utf8')),
    );
    if (!parsed.success) {
      refuse(400, `not an ExportTraceServiceRequest: ${parsed.error.message}`);
      return;
    }
    for (const resourceSpans of parsed.data.resourceSpans) {
      const service = String(resourceSpans.resource.attributes['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans) {
        for (const span of scope.spans) {
          received.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            // A root span's parent is absent or empty, depending on the exporter.
            ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
            name: span.name,
            kind: span.kind,
            attributes: span.attributes,
            statusCode: span.status.code,
          });
        }
      }
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{}');
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      refused.push(`${request.method} ${request.url} failed: ${String(error)}`);
      if (!response.headersSent) response.writeHead(400);
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    refused: () => [...refused],
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
