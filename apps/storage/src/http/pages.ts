import { WORKSPACE_LIST_PAGE } from '@wap/contracts';
import { decodeKeysetCursor, encodeKeysetCursor, type KeysetPosition } from '@wap/bus-protocol';

/** A list request's page size and where it starts, from its `limit` and `cursor`. */
export function pageRequest(
  list: string,
  query: { limit?: string; cursor?: string },
): { limit: number; after: KeysetPosition | undefined } {
  return {
    limit: query.limit === undefined ? WORKSPACE_LIST_PAGE.default : Number(query.limit),
    after: decodeKeysetCursor(list, query.cursor),
  };
}

/**
 * One page of `limit` items out of `found` (read with one more than `limit`, to know whether
 * another page follows) and the cursor of that next page.
 */
export function newestFirstPage<Item extends { id: string; createdAt: Date }>(
  list: string,
  found: Item[],
  limit: number,
): { items: Item[]; nextCursor: string | null } {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor:
      found.length > limit && last
        ? encodeKeysetCursor(list, { at: last.createdAt, id: last.id })
        : null,
  };
}
