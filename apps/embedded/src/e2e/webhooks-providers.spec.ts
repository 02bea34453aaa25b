import { createHmac, randomUUID } from 'node:crypto';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '@wap/webhook-ingest-service';
import { http, startStack, type TestStack } from './stack';
import { WEBHOOK_DOORS, doorUrl, withDoor } from './webhook-doors';

/**
 * The signed provider endpoints through each door (the gateway, and webhook-ingest's own port). Payloads are signed with the providers'
 * own code where they publish it (stripe, @octokit/webhooks-methods); Slack and Linear publish
 * only their scheme, computed here.
 */
const secrets = {
  stripe: 'whsec_e2e_stripe_secret',
  github: 'e2e-github-secret',
  linear: 'e2e-linear-secret',
  slack: 'e2e-slack-signing-secret',
};

/** POSTs to `path` through the door at `origin`. */
function postRaw(origin: string, path: string, body: string, headers: Record<string, string>) {
  return http(`${origin}${path}`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function stripeEvent(type: string, object: Record<string, unknown>) {
  return JSON.stringify({ id: `evt_${randomUUID()}`, object: 'event', type, data: { object } });
}

function stripeSignature(payload: string, secret = secrets.stripe, timestamp?: number) {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

function slackHeaders(
  payload: string,
  secret = secrets.slack,
  timestamp = Math.floor(Date.now() / 1000),
) {
  const signature = createHmac('sha256', secret).update(`v0:${timestamp}:${payload}`).digest('hex');
  return { 'x-slack-signature': `v0=${signature}`, 'x-slack-request-timestamp': String(timestamp) };
}

function linearSignature(payload: string, secret = secrets.linear) {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

const invalidSignature = { error: 'Invalid webhook signature', code: 'INVALID_SIGNATURE' };

describe.each(WEBHOOK_DOORS)(
  'signed provider webhooks on the %s runtime through the %s door',
  (runtime, door) => {
    let stack: TestStack;
    let hooks: string;
    beforeAll(async () => {
      stack = await startStack(runtime, {
        services: { webhookIngest: withDoor(door, { ...DEFAULT_WEBHOOK_INGEST_CONFIG, secrets }) },
      });
      hooks = doorUrl(stack, door);
    });
    afterAll(async () => {
      await stack.stop();
    });

    test('Stripe: a header from the stripe package is accepted; another secret, a changed body or an old timestamp are 401', async () => {
      const payload = stripeEvent('customer.created', { id: 'cus_1' });
      const accepted = await postRaw(hooks, '/webhooks/stripe', payload, {
        'stripe-signature': stripeSignature(payload),
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({ received: true });

      const refusals = [
        { payload, header: stripeSignature(payload, 'whsec_someone_else') },
        { payload: payload.replace('cus_1', 'cus_2'), header: stripeSignature(payload) },
        {
          payload,
          header: stripeSignature(payload, secrets.stripe, Math.floor(Date.now() / 1000) - 301),
        },
        { payload, header: '' },
      ];
      for (const refusal of refusals) {
        const response = await postRaw(hooks, '/webhooks/stripe', refusal.payload, {
          'stripe-signature': refusal.header,
        });
        expect(response.status).toBe(401);
        expect(response.body).toEqual(invalidSignature);
      }
    });

    test('GitHub: a signature from @octokit/webhooks-methods is accepted, a wrong one is 401', async () => {
      const payload = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
      const accepted = await postRaw(hooks, '/webhooks/github', payload, {
        'x-hub-signature-256': await signGitHub(secrets.github, payload),
        'x-github-event': 'ping',
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body).toEqual({ received: true });
      const refused = await postRaw(hooks, '/webhooks/github', payload, {
        'x-hub-signature-256': await signGitHub('not-the-secret', payload),
      });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(invalidSignature);
    });

    test('Linear: a hex HMAC with a fresh webhookTimestamp is accepted; a stale one is 401', async () => {
      const fresh = JSON.stringify({
        action: 'create',
        type: 'Issue',
        webhookTimestamp: Date.now(),
      });
      const accepted = await postRaw(hooks, '/webhooks/linear', fresh, {
        'linear-signature': linearSignature(fresh),
      });
      expect(accepted.status).toBe(200);
      const stale = JSON.stringify({ action: 'create', webhookTimestamp: Date.now() - 61_000 });
      const refused = await postRaw(hooks, '/webhooks/linear', stale, {
        'linear-signature': linearSignature(stale),
      });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(invalidSignature);
    });

    test('Slack: the url_verification challenge is answered once the signature holds; a stale timestamp is 401', async () => {
      const payload = JSON.stringify({ token: 't', challenge: 'c-123', type: 'url_verification' });
      const answered = await postRaw(
        hooks,
        '/webhooks/slack/events',
        payload,
        slackHeaders(payload),
      );
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual({ challenge: 'c-123' });

      const event = JSON.stringify({ type: 'event_callback', event: { type: 'message' } });
      const accepted = await postRaw(hooks, '/webhooks/slack/events', event, slackHeaders(event));
      expect(accepted.body).toEqual({ received: true });

      const stale = slackHeaders(payload, secrets.slack, Math.floor(Date.now() / 1000) - 301);
      const refused = await postRaw(hooks, '/webhooks/slack/events', payload, stale);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual(invalidSignature);
    });
  },
);

describe.each(WEBHOOK_DOORS)(
  'provider webhooks without secrets on the %s runtime through the %s door',
  (runtime, door) => {
    let stack: TestStack;
    let hooks: string;
    beforeAll(async () => {
      stack = await startStack(runtime, { services: { webhookIngest: withDoor(door) } });
      hooks = doorUrl(stack, door);
    });
    afterAll(async () => {
      await stack.stop();
    });

    test.each([
      ['/webhooks/stripe', 'Stripe'],
      ['/webhooks/github', 'GitHub'],
      ['/webhooks/linear', 'Linear'],
      ['/webhooks/slack/events', 'Slack'],
    ])(
      '%s answers 503 so the provider keeps retrying until a secret is set',
      async (path, name) => {
        const response = await postRaw(hooks, path, '{}', {});
        expect(response.status).toBe(503);
        expect(response.body).toEqual({
          error: `${name} webhooks are not configured`,
          code: 'SERVICE_UNAVAILABLE',
        });
      },
    );
  },
);
