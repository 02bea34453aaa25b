import { isJsonbStorable, toJsonbStorable } from './jsonb';

describe('jsonb-storable values', () => {
  const dirty = {
    note: 'a\0b',
    list: [{ ['k\0']: '\ud800' }, 'fine', 3, null],
    face: '\ud83d\ude00',
    tail: 'x\udc00',
  };

  test('a NUL or a lone surrogate anywhere, keys included, is not storable', () => {
    expect(isJsonbStorable(dirty)).toBe(false);
    expect(isJsonbStorable({ a: [{ b: 'c\0' }] })).toBe(false);
    expect(isJsonbStorable({ ['\udc00']: 1 })).toBe(false);
    expect(isJsonbStorable({ face: '\ud83d\ude00', path: 'C:\\u0000', n: 1 })).toBe(true);
  });

  test('toJsonbStorable replaces only those characters, and returns a storable value as it is', () => {
    expect(toJsonbStorable(dirty)).toEqual({
      note: 'a\ufffdb',
      list: [{ ['k\ufffd']: '\ufffd' }, 'fine', 3, null],
      face: '\ud83d\ude00',
      tail: 'x\ufffd',
    });
    const clean = { a: [1, 'b'] };
    expect(toJsonbStorable(clean)).toBe(clean);
  });
});
