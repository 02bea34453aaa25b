import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

/** Incoming HTTP headers as node:http gives them. */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

const incomingHeaderGetter: TextMapGetter<IncomingHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  // node:http lowercases header names; a hand-built carrier may not, so match in any case.
  get: (carrier, key) => {
    const direct = carrier[key];
    if (direct !== undefined) return direct;
    const name = Object.keys(carrier).find((candidate) => candidate.toLowerCase() === key);
    return name === undefined ? undefined : carrier[name];
  },
};

/** The active span's ids, for log lines; empty when no valid span is active. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** The trace id of the active span, e.g. to return to a client in an error body or header. */
export function currentTraceId(): string | undefined {
  return activeTraceFields().trace_id;
}

/**
 * Runs `fn` inside a SERVER span. An incoming `traceparent` makes the span its child, so a
 * caller's trace continues through this process; without one a new trace starts.
 */
export function runInServerSpan<T>(
  name: string,
  headers: IncomingHeaders,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  // An incoming request's only parent is what its headers say, never whatever context the
  // server happened to be in when it accepted the connection.
  const parent = propagation.extract(ROOT_CONTEXT, headers, incomingHeaderGetter);
  return context.with(parent, () =>
    trace
      .getTracer('@wap/observability')
      .startActiveSpan(name, { kind: SpanKind.SERVER }, async (span) => {
        try {
          return await fn(span);
        } catch (error) {
          span.recordException(error instanceof Error ? error : String(error));
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      }),
  );
}

export type { Span };

/** What a span stands for: work inside this process, or a call out to another system. */
export type SpanRole = 'internal' | 'client';

/**
 * Runs `fn` inside a child span of the active context (a step of a run, a model or tool call),
 * ended when `fn` settles; a throw marks it failed. `fn` may mark a failure that does not throw
 * with `markSpanFailed`.
 */
export function runInSpan<T>(
  name: string,
  options: { role?: SpanRole; attributes?: Attributes },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer('@wap/observability').startActiveSpan(
    name,
    {
      kind: options.role === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
      attributes: options.attributes,
    },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed with a readable reason, for failures that are answered, not thrown. */
export function markSpanFailed(span: Span, reason: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: reason });
}
