import { AppError } from '@wap/contracts';
import { decodeRunCursor, encodeRunCursor } from './run-cursor';

describe('the runs list cursor', () => {
  test('gives back the position it was made from', () => {
    const position = {
      createdAt: new Date('2026-11-25T10:11:12.345Z'),
      id: '0b8e3c52-5f1e-4a0b-9c53-2b1b7f9a6c11',
    };
    expect(decodeRunCursor(encodeRunCursor(position))).toEqual(position);
    expect(decodeRunCursor(undefined)).toBeUndefined();
  });

  test.each([
    ['garbage', 'not a cursor'],
    ['another list', Buffer.from('notes:5').toString('base64url')],
    [
      'a bad time',
      Buffer.from('runs:yesterday|0b8e3c52-5f1e-4a0b-9c53-2b1b7f9a6c11').toString('base64url'),
    ],
    ['a bad id', Buffer.from('runs:2026-11-25T10:11:12.345Z|1; drop table').toString('base64url')],
  ])('refuses %s with INVALID_CURSOR', (_, cursor) => {
    expect(() => decodeRunCursor(cursor)).toThrow(AppError);
    expect(() => decodeRunCursor(cursor)).toThrow('Invalid cursor');
  });
});
