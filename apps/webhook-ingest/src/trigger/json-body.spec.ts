import { parseJsonBody } from './json-body';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('parseJsonBody', () => {
  test.each([
    ['form-encoded', 'a=1&b=2'],
    ['empty', '   '],
    ['a NUL in a value', '{"note":"a\\u0000b"}'],
    ['a NUL in a key', '{"a\\u0000":1}'],
    ['a lone high surrogate', '{"note":"\\ud800"}'],
    ['a lone low surrogate deep inside', '{"list":[{"note":"x\\udc00"}]}'],
  ])('refuses %s with the spec 400', (_case, text) => {
    expect(() => parseJsonBody(bytes(text))).toThrow(
      expect.objectContaining({ status: 400, message: 'Invalid JSON body' }),
    );
  });

  test.each([
    ['an escaped backslash before u0000', '{"path":"C:\\\\u0000"}', { path: 'C:\\u0000' }],
    ['a surrogate pair', '{"face":"\\ud83d\\ude00"}', { face: '😀' }],
    ['escapes of ordinary characters', '{"tab":"a\\u0009b"}', { tab: 'a\tb' }],
  ])('accepts %s', (_case, text, expected) => {
    expect(parseJsonBody(bytes(text))).toEqual(expected);
  });
});
