import { trace } from '@opentelemetry/api';
import type { DestinationStream } from 'pino';
import { startInMemoryTracing, type InMemoryTracing } from './testing';
import { createLogger, withRequestLogger } from './logger';

function memoryDestination(): DestinationStream & { lines(): Record<string, unknown>[] } {
  const written: string[] = [];
  return {
    write: (line: string) => {
      written.push(line);
    },
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  let tracing: InMemoryTracing;
  beforeAll(() => {
    tracing = startInMemoryTracing();
  });
  afterAll(() => tracing.shutdown());

  it('writes JSON lines carrying the service, level and message', () => {
    const destination = memoryDestination();
    createLogger({ service: 'chat', level: 'info', destination }).info('ready');
    expect(destination.lines()).toEqual([
      expect.objectContaining({ service: 'chat', level: 'info', msg: 'ready' }),
    ]);
  });

  it('drops lines below the configured level', () => {
    const destination = memoryDestination();
    const logger = createLogger({ service: 'chat', level: 'warn', destination });
    logger.info('not written');
    logger.warn('written');
    expect(destination.lines().map((line) => line.msg)).toEqual(['written']);
  });

  it('adds the active span trace_id and span_id, and nothing outside a span', () => {
    const destination = memoryDestination();
    const logger = createLogger({ service: 'gateway', level: 'info', destination });
    const spanContext = trace.getTracer('test').startActiveSpan('request', (span) => {
      logger.info('inside');
      span.end();
      return span.spanContext();
    });
    logger.info('outside');

    const [inside, outside] = destination.lines();
    expect(inside).toMatchObject({ trace_id: spanContext.traceId, span_id: spanContext.spanId });
    expect(inside?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(outside).not.toHaveProperty('trace_id');
    expect(outside).not.toHaveProperty('span_id');
  });

  it('redacts cookies, authorization headers and secrets', () => {
    const destination = memoryDestination();
    const logger = createLogger({ service: 'gateway', level: 'info', destination });
    logger.info(
      {
        req: {
          method: 'GET',
          headers: { cookie: 'session=eyJhbGciOi', authorization: 'Bearer sk_live_abc' },
        },
        user: { email: 'ada@example.test', password: 'hunter2' },
        server: { name: 'crm', apiKey: 'k-123', token: 't-456', secret: 's-789', key: 'b64key' },
        authConfig: { clientSecret: 'cs-1' },
        token: 'top-level-token',
      },
      'request',
    );
    const [line] = destination.lines();
    expect(line).toMatchObject({
      req: { method: 'GET', headers: { cookie: '[redacted]', authorization: '[redacted]' } },
      user: { email: 'ada@example.test', password: '[redacted]' },
      server: {
        name: 'crm',
        apiKey: '[redacted]',
        token: '[redacted]',
        secret: '[redacted]',
        key: '[redacted]',
      },
      authConfig: '[redacted]',
      token: '[redacted]',
    });
    const raw = JSON.stringify(line);
    for (const secret of ['eyJhbGciOi', 'sk_live_abc', 'hunter2', 'k-123', 'cs-1', 'b64key']) {
      expect(raw).not.toContain(secret);
    }
  });

  it('withRequestLogger tags every line with the request id', () => {
    const destination = memoryDestination();
    const logger = createLogger({ service: 'gateway', level: 'info', destination });
    withRequestLogger(logger, 'req-42').info('handled');
    expect(destination.lines()[0]).toMatchObject({ request_id: 'req-42', service: 'gateway' });
  });
});
