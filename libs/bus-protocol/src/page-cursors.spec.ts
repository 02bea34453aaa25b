import { AppError } from '@wap/contracts';
import {
  decodeKeysetCursor,
  decodeSeqCursor,
  encodeKeysetCursor,
  encodeSeqCursor,
} from './page-cursors';

describe('sequence cursors', () => {
  test('give back the seq they were made from, for their own list only', () => {
    expect(decodeSeqCursor('rows', encodeSeqCursor('rows', 42))).toBe(42);
    expect(decodeSeqCursor('rows', undefined)).toBeNull();
    expect(() => decodeSeqCursor('notes', encodeSeqCursor('rows', 42))).toThrow(AppError);
  });

  test.each([
    ['garbage', 'not a cursor'],
    ['a negative seq', Buffer.from('rows:-1').toString('base64url')],
    ['a seq too long to be exact', Buffer.from('rows:1234567890123456').toString('base64url')],
  ])('refuse %s with INVALID_CURSOR', (_, cursor) => {
    expect(() => decodeSeqCursor('rows', cursor)).toThrow('Invalid cursor');
  });
});

describe('keyset cursors', () => {
  const position = {
    at: new Date('2026-11-25T10:11:12.345Z'),
    id: '0b8e3c52-5f1e-4a0b-9c53-2b1b7f9a6c11',
  };

  test('give back the position they were made from, for their own list only', () => {
    expect(decodeKeysetCursor('runs', encodeKeysetCursor('runs', position))).toEqual(position);
    expect(decodeKeysetCursor('runs', undefined)).toBeUndefined();
    expect(() => decodeKeysetCursor('tables', encodeKeysetCursor('runs', position))).toThrow(
      AppError,
    );
  });

  test.each([
    ['garbage', 'not a cursor'],
    [
      'a bad time',
      Buffer.from('runs:yesterday|0b8e3c52-5f1e-4a0b-9c53-2b1b7f9a6c11').toString('base64url'),
    ],
    ['a bad id', Buffer.from('runs:2026-11-25T10:11:12.345Z|1; drop table').toString('base64url')],
  ])('refuse %s with INVALID_CURSOR', (_, cursor) => {
    expect(() => decodeKeysetCursor('runs', cursor)).toThrow('Invalid cursor');
  });
});
