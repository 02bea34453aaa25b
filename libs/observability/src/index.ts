export { createLogger, withRequestLogger, type LoggerOptions } from './logger';
export { startTelemetry, type Telemetry, type TelemetryOptions } from './telemetry';
export {
  runInServerSpan,
  runInSpan,
  markSpanFailed,
  currentTraceId,
  type IncomingHeaders,
  type Span,
  type SpanRole,
} from './spans';
export {
  metrics,
  metricsRegistry,
  platformMetrics,
  collectProcessMetrics,
  renderMetrics,
} from './metrics';
