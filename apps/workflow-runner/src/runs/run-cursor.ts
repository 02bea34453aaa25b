import { AppError } from '@wap/contracts';

/** Where a page of runs ended: the last run's creation time and id (runs list newest first). */
export interface RunPosition {
  createdAt: Date;
  id: string;
}

const PREFIX = 'runs:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An opaque cursor for the runs list; anything not issued by `encodeRunCursor` is refused. */
export function encodeRunCursor(position: RunPosition): string {
  return Buffer.from(`${PREFIX}${position.createdAt.toISOString()}|${position.id}`).toString(
    'base64url',
  );
}

export function decodeRunCursor(cursor: string | undefined): RunPosition | undefined {
  if (cursor === undefined) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [time = '', id = ''] = text.startsWith(PREFIX) ? text.slice(PREFIX.length).split('|') : [];
  const createdAt = new Date(time);
  if (!UUID.test(id) || Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== time) {
    throw new AppError('INVALID_CURSOR', 'Invalid cursor');
  }
  return { createdAt, id };
}
