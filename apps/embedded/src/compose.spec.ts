import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '@wap/webhook-ingest-service';
import { webhookOrigin } from './compose';

describe('webhookOrigin', () => {
  const ingestWith = (publicBaseUrl: string) => ({
    ...DEFAULT_WEBHOOK_INGEST_CONFIG,
    publicBaseUrl,
  });

  it('is the origin given to either service, or none', () => {
    expect(webhookOrigin({ workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' } })).toBe(
      'https://a.test',
    );
    expect(webhookOrigin({ webhookIngest: ingestWith('https://b.test') })).toBe('https://b.test');
    expect(webhookOrigin({})).toBeUndefined();
  });

  it('accepts the same origin given to both, and refuses two different ones', () => {
    expect(
      webhookOrigin({
        workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' },
        webhookIngest: ingestWith('https://a.test'),
      }),
    ).toBe('https://a.test');
    expect(() =>
      webhookOrigin({
        workflowRunner: { PUBLIC_BASE_URL: 'https://a.test' },
        webhookIngest: ingestWith('https://b.test'),
      }),
    ).toThrow(/differ/);
  });
});
