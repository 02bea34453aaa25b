import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Workspace API keys start with this, so they are recognisable in logs, configs and scanners. */
const LIVE_KEY_PREFIX = 'sk_live_';
/** 256 bits of randomness per key. */
const KEY_RANDOM_BYTES = 32;
/** How much of a key may be shown back to its owner to tell keys apart. */
const DISPLAY_PREFIX_LENGTH = 12;

export interface GeneratedApiKey {
  /** The secret itself: shown once at creation, never stored. */
  key: string;
  /** The first 12 characters, stored and displayed to tell keys apart. */
  prefix: string;
  /** What is stored to recognise the key later. */
  hash: string;
}

/**
 * SHA-256 hex of the key. A fast hash is the right tool here, unlike for passwords: a key is
 * 256 random bits, so there is no dictionary to try and a slow hash would only slow down every
 * authenticated request without making a guess any less hopeless.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateApiKey(): GeneratedApiKey {
  const key = LIVE_KEY_PREFIX + randomBytes(KEY_RANDOM_BYTES).toString('base64url');
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** Compares two key hashes in constant time, so response timing does not reveal a partial match. */
export function apiKeysEqual(hashA: string, hashB: string): boolean {
  const a = Buffer.from(hashA, 'utf8');
  const b = Buffer.from(hashB, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
