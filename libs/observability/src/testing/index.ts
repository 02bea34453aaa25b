import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { claimGlobalTelemetry } from '../global-telemetry';

export interface InMemoryTracing {
  exporter: InMemorySpanExporter;
  /** Spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Stops recording; tracing cannot be started again in this process (see startTelemetry). */
  shutdown(): Promise<void>;
}

/**
 * Records every span in memory with the same propagation and context handling as production
 * (W3C trace context, AsyncLocalStorage), so tests can assert on whole traces. Once per test
 * file (each file has its own module registry): call it in `beforeAll`, and use
 * `exporter.reset()` between tests.
 */
export function startInMemoryTracing(): InMemoryTracing {
  claimGlobalTelemetry('startInMemoryTracing');
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);

  let stopped: Promise<void> | undefined;
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    shutdown() {
      stopped ??= provider.shutdown();
      return stopped;
    },
  };
}
