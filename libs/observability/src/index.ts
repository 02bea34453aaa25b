export { createLogger } from './logger';
export { startTelemetry } from './telemetry';
export { runInServerSpan, runInSpan, markSpanFailed } from './spans';
export { metrics, platformMetrics, collectProcessMetrics, renderMetrics } from './metrics';
