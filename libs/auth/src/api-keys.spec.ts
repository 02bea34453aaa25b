import { createHash } from 'node:crypto';
import { apiKeysEqual, generateApiKey, hashApiKey } from './api-keys';

describe('API keys', () => {
  it('generates sk_live_ keys with 32 random bytes in base64url', () => {
    const { key, prefix, hash } = generateApiKey();
    expect(key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice('sk_live_'.length), 'base64url')).toHaveLength(32);
    expect(prefix).toBe(key.slice(0, 12));
    expect(prefix).toHaveLength(12);
    expect(hash).toBe(hashApiKey(key));
  });

  it('never generates the same key twice', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey().key));
    expect(keys.size).toBe(200);
  });

  it('hashes with SHA-256 in hex', () => {
    expect(hashApiKey('sk_live_example')).toBe(
      createHash('sha256').update('sk_live_example').digest('hex'),
    );
    expect(hashApiKey('sk_live_example')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('compares hashes: equal, different, and of different lengths', () => {
    const { key, hash } = generateApiKey();
    expect(apiKeysEqual(hash, hashApiKey(key))).toBe(true);
    expect(apiKeysEqual(hash, generateApiKey().hash)).toBe(false);
    expect(apiKeysEqual(hash, hash.slice(0, 10))).toBe(false);
    expect(apiKeysEqual(hash, '')).toBe(false);
  });
});
