import { WORKSPACE_LIST_PAGE, WorkspaceListQuery } from '@wap/contracts';
import {
  actorOf,
  decodeKeysetCursor,
  encodeKeysetCursor,
  parseRequestPart,
  type KeysetPosition,
  type RouteHandler,
} from '@wap/bus-protocol';
import { requireMember, type WorkspaceStanding } from '../directory/access';

/** A list request's page size and where it starts, from its `limit` and `cursor`. */
function pageRequest(
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
function newestFirstPage<Item extends { id: string; createdAt: Date }>(
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

/**
 * `GET` of a workspace's records, newest first, a page at a time, for its members only: the
 * records under `field` of the body with the next page's `nextCursor`.
 */
export function workspaceListHandler<Row extends { id: string; createdAt: Date }>(list: {
  /** The cursor's name: a cursor of one list is refused by another. */
  cursor: string;
  field: string;
  standingOf: (workspaceId: string, userId: string) => Promise<WorkspaceStanding>;
  /** Up to `limit` rows of the workspace after `after`, newest first. */
  read: (workspaceId: string, after: KeysetPosition | undefined, limit: number) => Promise<Row[]>;
  toBody: (row: Row) => unknown;
}): RouteHandler {
  return async (request) => {
    const actor = actorOf(request);
    const query = parseRequestPart(WorkspaceListQuery, request.query);
    requireMember(await list.standingOf(query.workspaceId, actor.userId));
    const { limit, after } = pageRequest(list.cursor, query);
    const found = await list.read(query.workspaceId, after, limit + 1);
    const page = newestFirstPage(list.cursor, found, limit);
    return {
      status: 200,
      body: { [list.field]: page.items.map(list.toBody), nextCursor: page.nextCursor },
    };
  };
}
