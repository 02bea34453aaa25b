import { AppError } from '@wap/contracts';

/**
 * Opaque page cursors: a list's name and the sequence number of the last item given, in
 * base64url. A cursor of another list, or anything else, is refused with INVALID_CURSOR.
 */
export function encodeCursor(list: string, seq: number): string {
  return Buffer.from(`${list}:${seq}`, 'utf8').toString('base64url');
}

export function decodeCursor(list: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):([0-9]{1,15})$/u.exec(text);
  if (!match || match[1] !== list) throw new AppError('INVALID_CURSOR', 'Invalid cursor');
  return Number(match[2]);
}
