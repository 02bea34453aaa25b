import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { rememberReturnPath, takeReturnPath } from './return-path';

beforeEach(() => {
  const items = new Map<string, string>();
  vi.stubGlobal('sessionStorage', {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const at = (path: string) => {
  const url = new URL(path, 'http://app.local');
  return { pathname: url.pathname, search: url.search, hash: url.hash };
};

test('the page that asked for a sign-in is given back once, with its query', () => {
  rememberReturnPath(at('/app/w/5c9e/approvals/77?decision=approve'));
  expect(takeReturnPath()).toBe('/app/w/5c9e/approvals/77?decision=approve');
  expect(takeReturnPath()).toBeNull();
});

test.each([
  ['the sign-in page', { pathname: '/app/sign-in', search: '?expired=1', hash: '' }],
  ['another origin', { pathname: '//evil.example/app/x', search: '', hash: '' }],
  ['a backslash trick', { pathname: '/app/\\evil.example', search: '', hash: '' }],
  ['an API path', { pathname: '/approvals/77', search: '', hash: '' }],
  ['a control character', { pathname: '/app/w/1\n', search: '', hash: '' }],
])('%s is never remembered', (_label, location) => {
  rememberReturnPath(location);
  expect(takeReturnPath()).toBeNull();
});

test('a stored value that is not an app page is not followed', () => {
  sessionStorage.setItem('wap.return-path', 'https://evil.example/');
  expect(takeReturnPath()).toBeNull();
});
