import { createHash } from 'node:crypto';

import { IDEMPOTENCY_HEADERS } from '@wap/contracts';

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

/** JSON with object keys sorted at every level, so key order and whitespace do not matter. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
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
