import { createHmac } from 'node:crypto';
import { sign as signGitHub } from '@octokit/webhooks-methods';
import Stripe from 'stripe';
import {
  verifyGitHubSignature,
  verifyLinearSignature,
  verifySlackSignature,
  verifyStripeSignature,
} from './webhook-signatures';

const secret = 'whsec_test_secret_0123456789';
const nowMs = Date.UTC(2026, 10, 22, 6, 0, 0);
const nowSeconds = Math.floor(nowMs / 1000);
const body = '{"id":"evt_1","type":"checkout.session.completed","data":{"object":{}}}';
const bytes = (text: string) => new TextEncoder().encode(text);

/** Stripe's own test header generator, from the `stripe` package. */
function stripeHeader(payload: string, timestamp: number, signingSecret = secret): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret: signingSecret, timestamp });
}

/** Slack documents its scheme but publishes no signer: v0=HMAC(`v0:<ts>:<body>`). */
function slackSignature(payload: string, timestamp: number, signingSecret = secret): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${payload}`).digest('hex')}`;
}

/** Linear documents its scheme but publishes no signer: hex HMAC of the body. */
function linearSignature(payload: string, signingSecret = secret): string {
  return createHmac('sha256', signingSecret).update(payload).digest('hex');
}

describe('Stripe signatures', () => {
  test('a header from the stripe package verifies', () => {
    const headers = { 'stripe-signature': stripeHeader(body, nowSeconds) };
    expect(verifyStripeSignature({ secret, body: bytes(body), headers, nowMs })).toEqual({
      valid: true,
    });
  });

  test.each([
    ['another secret', stripeHeader(body, nowSeconds, 'whsec_other'), body],
    ['a changed body', stripeHeader(body, nowSeconds), body.replace('evt_1', 'evt_2')],
    ['a timestamp 301 s old', stripeHeader(body, nowSeconds - 301), body],
    ['a timestamp 301 s ahead', stripeHeader(body, nowSeconds + 301), body],
    ['no v1 signature', `t=${nowSeconds}`, body],
    ['garbage', 'not a signature', body],
  ])('%s is refused', (_label, header, payload) => {
    const check = verifyStripeSignature({
      secret,
      body: bytes(payload),
      headers: { 'stripe-signature': header },
      nowMs,
    });
    expect(check.valid).toBe(false);
  });

  test('the edge of the 300 s tolerance is accepted, and any of several v1 may match', () => {
    const old = stripeHeader(body, nowSeconds - 300);
    const rolled = `${old},v1=${'0'.repeat(64)}`;
    expect(
      verifyStripeSignature({
        secret,
        body: bytes(body),
        headers: { 'stripe-signature': rolled },
        nowMs,
      }).valid,
    ).toBe(true);
  });

  test('a missing header is refused', () => {
    expect(verifyStripeSignature({ secret, body: bytes(body), headers: {}, nowMs }).valid).toBe(
      false,
    );
  });
});

describe('GitHub signatures', () => {
  test('a signature from @octokit/webhooks-methods verifies', async () => {
    const headers = { 'x-hub-signature-256': await signGitHub(secret, body) };
    expect(verifyGitHubSignature({ secret, body: bytes(body), headers, nowMs }).valid).toBe(true);
  });

  test.each([
    ['another secret', async () => signGitHub('other', body), body],
    ['a changed body', async () => signGitHub(secret, body), `${body} `],
    ['a sha1 signature', async () => signGitHub({ secret, algorithm: 'sha1' }, body), body],
    ['a truncated signature', async () => (await signGitHub(secret, body)).slice(0, 40), body],
  ])('%s is refused', async (_label, makeHeader, payload) => {
    const headers = { 'x-hub-signature-256': await makeHeader() };
    expect(verifyGitHubSignature({ secret, body: bytes(payload), headers, nowMs }).valid).toBe(
      false,
    );
  });
});

describe('Linear signatures', () => {
  const linearBody = (timestampMs: number) =>
    JSON.stringify({ action: 'create', type: 'Issue', webhookTimestamp: timestampMs });

  test('a hex HMAC of the body with a fresh webhookTimestamp verifies', () => {
    const payload = linearBody(nowMs - 59_000);
    const headers = { 'linear-signature': linearSignature(payload) };
    expect(verifyLinearSignature({ secret, body: bytes(payload), headers, nowMs }).valid).toBe(
      true,
    );
  });

  test.each([
    ['a webhookTimestamp 61 s old', linearBody(nowMs - 61_000), secret],
    ['another secret', linearBody(nowMs), 'other'],
    ['no webhookTimestamp', JSON.stringify({ action: 'create' }), secret],
  ])('%s is refused', (_label, payload, signingSecret) => {
    const headers = { 'linear-signature': linearSignature(payload, signingSecret) };
    expect(verifyLinearSignature({ secret, body: bytes(payload), headers, nowMs }).valid).toBe(
      false,
    );
  });
});

describe('Slack signatures', () => {
  test('v0 over `v0:timestamp:body` within five minutes verifies', () => {
    const timestamp = nowSeconds - 299;
    const headers = {
      'x-slack-signature': slackSignature(body, timestamp),
      'x-slack-request-timestamp': String(timestamp),
    };
    expect(verifySlackSignature({ secret, body: bytes(body), headers, nowMs }).valid).toBe(true);
  });

  test.each([
    ['a timestamp 301 s old', nowSeconds - 301, secret, String(nowSeconds - 301)],
    ['another secret', nowSeconds, 'other', String(nowSeconds)],
    [
      'a timestamp header that differs from the signed one',
      nowSeconds,
      secret,
      String(nowSeconds - 1),
    ],
  ])('%s is refused', (_label, signedAt, signingSecret, timestampHeader) => {
    const headers = {
      'x-slack-signature': slackSignature(body, signedAt, signingSecret),
      'x-slack-request-timestamp': timestampHeader,
    };
    expect(verifySlackSignature({ secret, body: bytes(body), headers, nowMs }).valid).toBe(false);
  });
});
