import { readCookie, sessionCookie } from './cookies';

describe('readCookie', () => {
  test.each([
    ['session=abc', 'abc'],
    ['theme=dark; session=abc; other=1', 'abc'],
    ['session="quoted"', 'quoted'],
    ['session=a%20b', 'a b'],
    ['session=%E0%A4%A', '%E0%A4%A'],
    ['sessionx=abc', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%s → %s', (header, expected) => {
    expect(readCookie(header, 'session')).toBe(expected);
  });
});

test('the session cookie carries the spec attributes', () => {
  expect(sessionCookie('t', { secure: true, maxAgeSec: 60 })).toBe(
    'session=t; Path=/; HttpOnly; SameSite=Lax; Max-Age=60; Secure',
  );
  expect(sessionCookie('t', { secure: false, maxAgeSec: 60 })).not.toContain('Secure');
});
