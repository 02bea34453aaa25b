import { AppError } from '@wap/contracts';

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
    throw new AppError('INVALID_CURSOR', 'Invalid cursor');
  }
  return { at, id };
}
