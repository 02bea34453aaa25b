import { AppError } from '@wap/contracts';

/** A keyset position in a list ordered by activity time, newest first, ties by id. */
export interface ActivityPosition {
  at: Date;
  id: string;
}

const POSITION =
  /^([a-z]+):([0-9]{1,15}):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/u;

/**
 * Opaque page cursors: the list's name, the last item's activity time (epoch milliseconds) and
 * its id, in base64url. Times are written by the service's clock in whole milliseconds, so the
 * position is exact.
 */
export function encodeActivityCursor(list: string, position: ActivityPosition): string {
  return Buffer.from(`${list}:${position.at.getTime()}:${position.id}`, 'utf8').toString(
    'base64url',
  );
}

/** The position a cursor names; a cursor of another list, or anything else, is INVALID_CURSOR. */
export function decodeActivityCursor(
  list: string,
  cursor: string | undefined,
): ActivityPosition | null {
  if (cursor === undefined) return null;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const at = match ? new Date(Number(match[2])) : null;
  if (!match || match[1] !== list || !at || Number.isNaN(at.getTime())) {
    throw new AppError('INVALID_CURSOR', 'Invalid cursor');
  }
  return { at, id: match[3] as string };
}
