import {
  context,
  isSpanContextValid,
  trace,
  TraceFlags,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

const idBytes = Buffer.allocUnsafe(16);

/**
 * Random lower-case hex of `bytes` bytes (8 or 16), never all zeros. Trace and span ids are
 * labels for correlating logs, not secrets: Math.random is enough, and far cheaper than a
 * cryptographic source on a path taken for every request and message.
 */
function randomId(bytes: 8 | 16): string {
  for (let offset = 0; offset < bytes; offset += 4) {
    idBytes.writeUInt32BE((Math.random() * 0x1_0000_0000) >>> 0, offset);
  }
  if (idBytes.readUInt32BE(0) === 0) idBytes.writeUInt32BE(1, 0);
  return idBytes.toString('hex', 0, bytes);
}

/**
 * A tracer for a process that exports nowhere: its spans record nothing, but each has its own
 * span id and belongs to its parent's trace (or starts one), so trace ids still reach the logs
 * and the bus headers. A recording SDK span costs attributes, timestamps and a resource per span
 * for data nobody reads.
 */
class IdOnlyTracer implements Tracer {
  startSpan(_name: string, options?: SpanOptions, parentContext: Context = context.active()): Span {
    const parent = options?.root ? undefined : trace.getSpanContext(parentContext);
    const inherited = parent && isSpanContextValid(parent) ? parent : undefined;
    return trace.wrapSpanContext({
      traceId: inherited?.traceId ?? randomId(16),
      spanId: randomId(8),
      traceFlags: inherited?.traceFlags ?? TraceFlags.SAMPLED,
    });
  }

  startActiveSpan<F extends (span: Span) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    options: SpanOptions,
    parentContext: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = rest.length > 1 ? (rest[0] as SpanOptions) : undefined;
    const parentContext = rest.length > 2 ? (rest[1] as Context) : context.active();
    const span = this.startSpan(name, options, parentContext);
    return context.with(trace.setSpan(parentContext, span), () => fn(span)) as ReturnType<F>;
  }
}

export class IdOnlyTracerProvider implements TracerProvider {
  private readonly tracer = new IdOnlyTracer();

  getTracer(): Tracer {
    return this.tracer;
  }
}
