import { createRateLimiter } from './rate-limiter';

describe('createRateLimiter', () => {
  function limiterAt(start: number) {
    let now = start;
    const limiter = createRateLimiter({
      perSecond: 2,
      burst: 3,
      maxAddresses: 2,
      nowMs: () => now,
    });
    return { limiter, advance: (ms: number) => (now += ms) };
  }

  test('a burst passes, the next request waits for the refill, which then passes', () => {
    const { limiter, advance } = limiterAt(1_000);
    for (let i = 0; i < 3; i += 1) expect(limiter.take('a')).toEqual({ allowed: true });
    expect(limiter.take('a')).toEqual({ allowed: false, retryAfterMs: 500 });
    advance(499);
    expect(limiter.take('a').allowed).toBe(false);
    advance(1);
    expect(limiter.take('a')).toEqual({ allowed: true });
  });

  test('each address has its own bucket', () => {
    const { limiter } = limiterAt(0);
    for (let i = 0; i < 3; i += 1) limiter.take('a');
    expect(limiter.take('a').allowed).toBe(false);
    expect(limiter.take('b')).toEqual({ allowed: true });
  });

  test('beyond maxAddresses the least recently used bucket is forgotten (it starts full again)', () => {
    const { limiter } = limiterAt(0);
    for (let i = 0; i < 3; i += 1) limiter.take('a');
    limiter.take('b');
    limiter.take('c');
    expect(limiter.take('a')).toEqual({ allowed: true });
  });
});
