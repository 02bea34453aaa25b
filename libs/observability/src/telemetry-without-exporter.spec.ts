import { context, propagation } from '@opentelemetry/api';
import { currentTraceId, runInServerSpan } from './spans';
import { startTelemetry } from './telemetry';

describe('startTelemetry without an OTLP endpoint', () => {
  const telemetry = startTelemetry({ serviceName: 'chat' });
  afterAll(() => telemetry.shutdown());

  it('still gives requests trace ids for the logs and the bus headers', async () => {
    const outgoing: Record<string, string> = {};
    const traceId = await runInServerSpan('GET /v1/chats', {}, async () => {
      propagation.inject(context.active(), outgoing);
      return currentTraceId();
    });
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(traceId).not.toBe('0'.repeat(32));
    expect(outgoing.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });
});
