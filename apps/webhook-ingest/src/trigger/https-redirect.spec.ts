import { randomUUID } from 'node:crypto';
import type { RawServiceRequest } from '@wap/contracts';
import { testLogger } from '@wap/testing';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '../config';
import { createTriggerHandlers } from './trigger-handler';

/** The redirect is answered before the request is looked up or stored: nothing else is used. */
const unused = new Proxy(
  {},
  {
    get: (_target, key) => {
      throw new Error(`the redirect used ${String(key)}`);
    },
  },
) as never;

function handlersWith(publicBaseUrl: string | undefined) {
  return createTriggerHandlers({
    platform: unused,
    addresses: unused,
    credits: unused,
    directory: unused,
    claims: unused,
    rateLimiter: unused,
    config: { ...DEFAULT_WEBHOOK_INGEST_CONFIG, publicBaseUrl },
    logger: testLogger(),
  });
}

function plainHttpRequest(webhookId: string): RawServiceRequest {
  return {
    requestId: randomUUID(),
    method: 'POST',
    path: `/webhooks/${webhookId}`,
    params: { webhookId },
    query: {},
    headers: { 'content-type': 'application/json' },
    protocol: 'http',
    host: 'hooks.example.com',
    remoteAddress: '203.0.113.9',
    apiKey: null,
    body: new TextEncoder().encode('{}'),
  };
}

describe('https redirect of the Custom Webhook trigger', () => {
  test.each([
    ['an https PUBLIC_BASE_URL', 'https://public.example.com/', 'https://public.example.com'],
    // The embedded runtime's default origin: redirecting there would send https to plain http.
    ['an http PUBLIC_BASE_URL', 'http://localhost:3000', 'https://hooks.example.com'],
    ['no PUBLIC_BASE_URL', undefined, 'https://hooks.example.com'],
  ])('with %s, plain http is sent to the https address', async (_case, publicBaseUrl, origin) => {
    const webhookId = randomUUID();
    const { reply, outcome, reason } = await handlersWith(publicBaseUrl).trigger(
      plainHttpRequest(webhookId),
    );
    expect({ outcome, reason }).toEqual({ outcome: 'refused', reason: 'https_redirect' });
    expect(reply.status).toBe(308);
    expect(reply.headers).toEqual({ location: `${origin}/webhooks/${webhookId}` });
  });
});
