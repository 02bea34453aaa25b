/** The tables feature's query keys: one factory, so an invalidation names exactly what it means. */
export const tablesKeys = {
  all: ['tables'] as const,
  /** The workspace's tables, newest first, as far as they were paged. */
  list: (workspaceId: string) => [...tablesKeys.all, 'list', workspaceId] as const,
  table: (tableId: string) => [...tablesKeys.all, tableId] as const,
  rows: (tableId: string) => [...tablesKeys.table(tableId), 'rows'] as const,
};
