import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifiers of the HMAC signatures that payment, code-host, issue-tracker and messaging
 * providers put on their webhooks. Each checks the raw body bytes as received (never a
 * re-serialised JSON), compares in constant time, and enforces the provider's replay window.
 */
export type SignatureCheck = { valid: true } | { valid: false; reason: string };

/** Lower-cased request headers, as raw routes receive them. */
export type SignedHeaders = Readonly<Record<string, string | undefined>>;

export interface SignatureInput {
  secret: string;
  body: Uint8Array;
  headers: SignedHeaders;
  /** The verifier's clock, in milliseconds since the epoch. */
  nowMs: number;
}

/** Stripe's documented default tolerance for `t=` (seconds). */
export const STRIPE_TOLERANCE_SECONDS = 300;
/** Slack asks receivers to refuse timestamps more than five minutes away (seconds). */
export const SLACK_TOLERANCE_SECONDS = 300;
/** Linear asks receivers to refuse a `webhookTimestamp` more than a minute away (milliseconds). */
export const LINEAR_TOLERANCE_MS = 60_000;

const valid: SignatureCheck = { valid: true };
function invalid(reason: string): SignatureCheck {
  return { valid: false, reason };
}

function hmacSha256(secret: string, ...parts: (string | Uint8Array)[]): Buffer {
  const hmac = createHmac('sha256', secret);
  for (const part of parts) hmac.update(part);
  return hmac.digest();
}

/** Constant-time comparison of a hex signature with the expected digest. */
function hexMatches(candidate: string, expected: Buffer): boolean {
  if (!/^[0-9a-f]+$/i.test(candidate) || candidate.length !== expected.length * 2) return false;
  return timingSafeEqual(Buffer.from(candidate, 'hex'), expected);
}

function withinSeconds(timestampSeconds: number, nowMs: number, toleranceSeconds: number): boolean {
  return Math.abs(nowMs / 1000 - timestampSeconds) <= toleranceSeconds;
}

/**
 * Stripe: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=<hex>...]`, HMAC-SHA256 of `<t>.<body>`;
 * any v1 may match (Stripe sends several while a secret is rolled).
 */
export function verifyStripeSignature(input: SignatureInput): SignatureCheck {
  const header = input.headers['stripe-signature'];
  if (!header) return invalid('missing Stripe-Signature');
  let timestamp: string | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === 't') timestamp = value;
    if (key === 'v1') candidates.push(value);
  }
  if (!timestamp || !/^\d+$/.test(timestamp) || candidates.length === 0) {
    return invalid('malformed Stripe-Signature');
  }
  const expected = hmacSha256(input.secret, `${timestamp}.`, input.body);
  // Every candidate is compared, so the time taken does not depend on which one matched.
  const matched = candidates.map((candidate) => hexMatches(candidate, expected)).includes(true);
  if (!matched) return invalid('signature mismatch');
  if (!withinSeconds(Number(timestamp), input.nowMs, STRIPE_TOLERANCE_SECONDS)) {
    return invalid('timestamp outside the tolerance');
  }
  return valid;
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body (no timestamp is signed). */
export function verifyGitHubSignature(input: SignatureInput): SignatureCheck {
  const header = input.headers['x-hub-signature-256'];
  if (!header) return invalid('missing X-Hub-Signature-256');
  if (!header.startsWith('sha256=')) return invalid('malformed X-Hub-Signature-256');
  return hexMatches(header.slice('sha256='.length), hmacSha256(input.secret, input.body))
    ? valid
    : invalid('signature mismatch');
}

/**
 * Linear: `Linear-Signature: <hex>`, HMAC-SHA256 of the body; the body's `webhookTimestamp`
 * (milliseconds) must be within a minute, which is what stops a captured delivery's replay.
 */
export function verifyLinearSignature(input: SignatureInput): SignatureCheck {
  const header = input.headers['linear-signature'];
  if (!header) return invalid('missing Linear-Signature');
  if (!hexMatches(header.trim(), hmacSha256(input.secret, input.body))) {
    return invalid('signature mismatch');
  }
  const timestamp = readLinearTimestamp(input.body);
  if (timestamp === undefined) return invalid('missing webhookTimestamp');
  if (Math.abs(input.nowMs - timestamp) > LINEAR_TOLERANCE_MS) {
    return invalid('timestamp outside the tolerance');
  }
  return valid;
}

function readLinearTimestamp(body: Uint8Array): number | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(body).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const timestamp = (parsed as Record<string, unknown>)['webhookTimestamp'];
    return typeof timestamp === 'number' && Number.isFinite(timestamp) ? timestamp : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Slack: `X-Slack-Signature: v0=<hex>`, HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<body>`;
 * the timestamp (seconds) must be within five minutes.
 */
export function verifySlackSignature(input: SignatureInput): SignatureCheck {
  const header = input.headers['x-slack-signature'];
  const timestamp = input.headers['x-slack-request-timestamp'];
  if (!header || !timestamp) return invalid('missing X-Slack-Signature or timestamp');
  if (!header.startsWith('v0=') || !/^\d+$/.test(timestamp)) {
    return invalid('malformed X-Slack-Signature');
  }
  const expected = hmacSha256(input.secret, `v0:${timestamp}:`, input.body);
  if (!hexMatches(header.slice('v0='.length), expected)) return invalid('signature mismatch');
  if (!withinSeconds(Number(timestamp), input.nowMs, SLACK_TOLERANCE_SECONDS)) {
    return invalid('timestamp outside the tolerance');
  }
  return valid;
}
