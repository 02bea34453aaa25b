import { AppError } from '@wap/contracts';

/**
 * Opaque page cursors of lists ordered by a sequence number: the list's name and the last seq
 * given, in base64url. A cursor of another list, or anything else, is refused.
 */
export function encodeSeqCursor(list: string, seq: number): string {
  return Buffer.from(`${list}:${seq}`, 'utf8').toString('base64url');
}

export function decodeSeqCursor(list: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([a-z]+):([0-9]{1,15})$/u.exec(text);
  if (!match || match[1] !== list) throw new AppError('INVALID_CURSOR', 'Invalid cursor');
  return Number(match[2]);
}
