import { AppError } from '@wap/contracts';

/**
 * The page cursors of every list: opaque base64url of the list's name and where the page ended,
 * so a cursor of another list, or anything else, is refused with INVALID_CURSOR.
 */
function invalidCursor(): AppError {
  return new AppError('INVALID_CURSOR', 'Invalid cursor');
}

/** A cursor of `list`, a list ordered by a sequence number, after the item of `seq`. */
export function encodeSeqCursor(list: string, seq: number): string {
  return Buffer.from(`${list}:${seq}`, 'utf8').toString('base64url');
}

export function decodeSeqCursor(list: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null;
  const match = /^([a-z]+):([0-9]{1,15})$/u.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || match[1] !== list) throw invalidCursor();
  return Number(match[2]);
}

/** Where a page ended in a list ordered by a time, newest first, ties by id. */
export interface KeysetPosition {
  at: Date;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An opaque cursor of `list`; only what `encodeKeysetCursor` gave for that list decodes. */
export function encodeKeysetCursor(list: string, position: KeysetPosition): string {
  return Buffer.from(`${list}:${position.at.toISOString()}|${position.id}`, 'utf8').toString(
    'base64url',
  );
}

export function decodeKeysetCursor(
  list: string,
  cursor: string | undefined,
): KeysetPosition | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const prefix = `${list}:`;
  const [time = '', id = ''] = text.startsWith(prefix) ? text.slice(prefix.length).split('|') : [];
  const at = new Date(time);
  if (!UUID.test(id) || Number.isNaN(at.getTime()) || at.toISOString() !== time) {
    throw invalidCursor();
  }
  return { at, id };
}
