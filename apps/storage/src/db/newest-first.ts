import { and, desc, eq, lt, or, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { type KeysetPosition } from '@wap/bus-protocol';

/**
 * The ordering and the "after this position" condition of a list newest first, ties by id:
 * keyset paging, so a page costs the same however far down it is.
 */
export function newestFirst(columns: { createdAt: PgColumn; id: PgColumn }) {
  return {
    orderBy: [desc(columns.createdAt), desc(columns.id)] as const,
    after(position: KeysetPosition | undefined): SQL | undefined {
      if (!position) return undefined;
      return or(
        lt(columns.createdAt, position.at),
        and(eq(columns.createdAt, position.at), lt(columns.id, position.id)),
      );
    },
  };
}
