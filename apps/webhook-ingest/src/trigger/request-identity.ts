import { createHash } from 'node:crypto';

import { IDEMPOTENCY_HEADERS } from '@wap/contracts';
import { canonicalJson } from '@wap/platform';

export { IDEMPOTENCY_HEADERS };

/**
 * The sender's event name from the first idempotency header present (headers arrive
 * lower-cased, so the match is case-insensitive); blank values do not count.
 */
export function idempotencyValueOf(headers: Record<string, string>): string | undefined {
  for (const name of IDEMPOTENCY_HEADERS) {
    const value = headers[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * KV key of an idempotency value, per address: the value is hashed because senders put any
 * characters in it and KV keys allow few.
 */
export function idempotencyKey(webhookId: string, value: string): string {
  return `${webhookId}.${sha256Hex(value)}`;
}

/**
 * KV key of a request without an idempotency header. "Identical" means the same address and
 * the same JSON body as data (key order and whitespace ignored); headers are not part of it,
 * because senders stamp each delivery with fresh timestamps, trace and request ids.
 */
export function fingerprintKey(webhookId: string, body: unknown): string {
  return `${webhookId}.${sha256Hex(canonicalJson(body))}`;
}
