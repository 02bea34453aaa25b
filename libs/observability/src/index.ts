export { createLogger, withRequestLogger, type LoggerOptions } from './logger';
export { startTelemetry, type Telemetry, type TelemetryOptions } from './telemetry';
export { runInServerSpan, currentTraceId, type IncomingHeaders } from './spans';
export { metrics, metricsRegistry, collectProcessMetrics, renderMetrics } from './metrics';
