import type { SessionClaims } from '@wap/auth';
import { cacheVerifiedSessions } from './verified-sessions';

describe('cacheVerifiedSessions', () => {
  let nowMs = 1_000_000;
  const now = () => nowMs;
  const claims = (expSec: number): SessionClaims => ({
    sub: 'user',
    email: 'user@example.com',
    name: 'User',
    platformAdmin: false,
    exp: expSec,
  });

  beforeEach(() => {
    nowMs = 1_000_000;
  });

  test('a verified token is reused without verifying again', async () => {
    const verify = jest.fn(async () => claims(nowMs / 1000 + 3600));
    const cached = cacheVerifiedSessions(verify, now);
    await cached('token');
    await cached('token');
    expect(verify).toHaveBeenCalledTimes(1);
  });

  test('a token is verified again once it expired, so expiry is still reported', async () => {
    const verify = jest.fn(async () => claims(nowMs / 1000 + 60));
    const cached = cacheVerifiedSessions(verify, now);
    await cached('token');
    nowMs += 61_000;
    await cached('token');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  test('reuse is bounded to five minutes even for long sessions', async () => {
    const verify = jest.fn(async () => claims(nowMs / 1000 + 86_400));
    const cached = cacheVerifiedSessions(verify, now);
    await cached('token');
    nowMs += 4 * 60_000;
    await cached('token');
    expect(verify).toHaveBeenCalledTimes(1);
    nowMs += 2 * 60_000;
    await cached('token');
    expect(verify).toHaveBeenCalledTimes(2);
  });

  test('failures are not cached', async () => {
    const verify = jest.fn(async () => {
      throw new Error('bad signature');
    });
    const cached = cacheVerifiedSessions(verify, now);
    await expect(cached('forged')).rejects.toThrow('bad signature');
    await expect(cached('forged')).rejects.toThrow('bad signature');
    expect(verify).toHaveBeenCalledTimes(2);
  });
});
