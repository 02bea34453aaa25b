import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { claimGlobalTelemetry } from './global-telemetry';
import { IdOnlyTracerProvider } from './id-only-tracing';

export interface TelemetryOptions {
  /** `service.name` of every span this process records. */
  serviceName: string;
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); traces go to `<endpoint>/v1/traces`. */
  otlpEndpoint?: string;
  /** More processors for the recorded spans, beside the OTLP export. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  /** Exports the spans still buffered, then stops recording; safe to call more than once. */
  shutdown(): Promise<void>;
}

/** The traces signal path the OTLP/HTTP spec appends to the base endpoint. */
function tracesUrl(otlpEndpoint: string): string {
  return new URL('v1/traces', otlpEndpoint.endsWith('/') ? otlpEndpoint : `${otlpEndpoint}/`).href;
}

/**
 * Starts tracing for the process: W3C trace context propagation (read and written by the bus
 * helpers of `@wap/platform`), an AsyncLocalStorage context manager, and OTLP/HTTP export when an
 * endpoint is configured. Call it once per process, before the platform adapters are created.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  claimGlobalTelemetry('startTelemetry');
  const spanProcessors = [...(options.spanProcessors ?? [])];
  if (options.otlpEndpoint) {
    spanProcessors.push(
      new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(options.otlpEndpoint) })),
    );
  }
  // With nowhere to send spans, none is recorded, but every span still gets its ids: they reach
  // the logs and the bus headers, so one request can be followed across services through the
  // logs alone. Recording spans for nobody cost the hot paths a quarter of their CPU.
  if (spanProcessors.length === 0) {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(new IdOnlyTracerProvider());
    return { shutdown: async () => undefined };
  }

  // Every signal is configured here, explicitly: left empty, the SDK would read OTEL_* variables
  // and export traces, metrics and logs to localhost by default, which config.ts never asked for.
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    spanProcessors,
    metricReaders: [],
    logRecordProcessors: [],
    textMapPropagator: new W3CTraceContextPropagator(),
    instrumentations: [],
  });
  sdk.start();

  let stopped: Promise<void> | undefined;
  return {
    shutdown() {
      stopped ??= sdk.shutdown();
      return stopped;
    },
  };
}
