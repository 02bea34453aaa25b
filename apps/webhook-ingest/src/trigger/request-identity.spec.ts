import {
  IDEMPOTENCY_HEADERS,
  fingerprintKey,
  idempotencyKey,
  idempotencyValueOf,
} from './request-identity';

const hook = '7d1f5a4e-1f40-4c55-8d5b-0b6f7c1d2e3f';

describe('idempotency headers', () => {
  test.each(IDEMPOTENCY_HEADERS)('%s names the event', (name) => {
    expect(idempotencyValueOf({ [name]: ' evt-1 ', 'content-type': 'application/json' })).toBe(
      'evt-1',
    );
  });

  test('the first header of the list wins, blank values do not count, no header: undefined', () => {
    expect(idempotencyValueOf({ 'x-request-id': 'r', 'idempotency-key': 'k' })).toBe('k');
    expect(idempotencyValueOf({ 'idempotency-key': '  ', 'x-event-id': 'e' })).toBe('e');
    expect(idempotencyValueOf({ 'content-type': 'application/json' })).toBeUndefined();
  });

  test('keys are per address and safe for KV whatever the value holds', () => {
    expect(idempotencyKey(hook, 'a b/c*>')).toMatch(/^[0-9a-f-]+\.[0-9a-f]{64}$/);
    expect(idempotencyKey(hook, 'x')).not.toBe(idempotencyKey('other', 'x'));
  });
});

describe('request fingerprints', () => {
  test('key order and whitespace do not change the fingerprint', () => {
    expect(fingerprintKey(hook, { a: 1, b: { c: [1, 2], d: 'x' } })).toBe(
      fingerprintKey(hook, JSON.parse('{ "b": {"d":"x", "c":[1,2]},\n "a": 1 }')),
    );
  });

  test.each([
    ['another value', { a: 2 }],
    ['another array order', { a: [2, 1] }],
    ['a number as a string', { a: '1' }],
  ])('%s is another request', (_label, other) => {
    expect(fingerprintKey(hook, { a: 1 })).not.toBe(fingerprintKey(hook, other));
  });

  test('the same body on another address is another request', () => {
    expect(fingerprintKey(hook, { a: 1 })).not.toBe(fingerprintKey('other', { a: 1 }));
  });
});
