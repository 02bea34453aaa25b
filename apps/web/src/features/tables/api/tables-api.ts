import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
} from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  Cells,
  CreatePropertyBody,
  CreateTableBody,
  PropertyResponse,
  RowResponse,
  RowsPage,
  SplitNameBody,
  SplitNameResponse,
  TableResponse,
  TableRow,
  TablesPage,
  UpdatePropertyBody,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { tablesKeys } from './tables-keys';

export type TableWithProperties = z.infer<typeof TableResponse>;
type RowsPageBody = z.infer<typeof RowsPage>;

/** Rows asked for per page: a screenful or two; "Load more" asks for the next. */
export const ROWS_PER_PAGE = 50;

const tablePath = (tableId: string, rest = '') =>
  `/tables/${encodeURIComponent(tableId)}${rest ? `/${rest}` : ''}`;

/** The workspace's tables, newest first, a page per "Load more". */
export function useTablesList(workspaceId: string) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: tablesKeys.list(workspaceId),
    queryFn: ({ signal, pageParam }) =>
      api.get<z.infer<typeof TablesPage>>('/tables', {
        signal,
        query: { workspaceId, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useCreateTable() {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateTableBody) => api.post<TableWithProperties>('/tables', body),
    onSuccess: (created) => {
      queryClient.setQueryData(tablesKeys.table(created.table.id), created);
      void queryClient.invalidateQueries({ queryKey: tablesKeys.list(created.table.workspace_id) });
    },
  });
}

/**
 * A table with its properties in position order; also what a workflow's table-row step reads
 * its columns from, so both pages share one cached answer. No id asks nothing.
 */
export function useTable(tableId: string | undefined) {
  const api = useApiClient();
  return useQuery({
    enabled: tableId !== undefined,
    queryKey: tablesKeys.table(tableId ?? ''),
    queryFn: ({ signal }) => api.get<TableWithProperties>(tablePath(tableId ?? ''), { signal }),
  });
}

export function useCreateProperty(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: CreatePropertyBody) =>
      api.post<z.infer<typeof PropertyResponse>>(tablePath(tableId, 'properties'), body),
    onSuccess: ({ property }) =>
      queryClient.setQueryData<TableWithProperties>(tablesKeys.table(tableId), (previous) =>
        previous ? { ...previous, properties: [...previous.properties, property] } : previous,
      ),
  });
}

export function useRenameTable(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => api.patch<TableWithProperties>(tablePath(tableId), { name }),
    onSuccess: (renamed) => {
      queryClient.setQueryData(tablesKeys.table(tableId), renamed);
      void queryClient.invalidateQueries({ queryKey: tablesKeys.list(renamed.table.workspace_id) });
    },
  });
}

/** Deletes the table with its columns and rows; the caller leaves its page. */
export function useDeleteTable(workspaceId: string, tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api.delete<void>(tablePath(tableId)),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: tablesKeys.table(tableId) });
      void queryClient.invalidateQueries({ queryKey: tablesKeys.list(workspaceId) });
    },
  });
}

/** A column's name, visibility or options; emptied options change rows, so they are read again. */
export function useUpdateProperty(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ propertyId, ...body }: UpdatePropertyBody & { propertyId: string }) =>
      api.patch<z.infer<typeof PropertyResponse>>(
        tablePath(tableId, `properties/${encodeURIComponent(propertyId)}`),
        body,
      ),
    onSuccess: async ({ property }) => {
      queryClient.setQueryData<TableWithProperties>(tablesKeys.table(tableId), (previous) =>
        previous
          ? {
              ...previous,
              properties: previous.properties.map((old) =>
                old.id === property.id ? property : old,
              ),
            }
          : previous,
      );
      await queryClient.invalidateQueries({ queryKey: tablesKeys.rows(tableId) });
    },
  });
}

export function useDeleteProperty(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (propertyId: string) =>
      api.delete<void>(tablePath(tableId, `properties/${encodeURIComponent(propertyId)}`)),
    onSuccess: async (_nothing, propertyId) => {
      queryClient.setQueryData<TableWithProperties>(tablesKeys.table(tableId), (previous) =>
        previous
          ? { ...previous, properties: previous.properties.filter((p) => p.id !== propertyId) }
          : previous,
      );
      await queryClient.invalidateQueries({ queryKey: tablesKeys.rows(tableId) });
    },
  });
}

/** The rows, oldest first, one page per "Load more" (decision 61). */
export function useRows(tableId: string) {
  const api = useApiClient();
  return useInfiniteQuery({
    queryKey: tablesKeys.rows(tableId),
    queryFn: ({ signal, pageParam }) =>
      api.get<RowsPageBody>(tablePath(tableId, 'rows'), {
        signal,
        query: { limit: ROWS_PER_PAGE, cursor: pageParam },
      }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useCreateRow(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (cells: Cells) =>
      api.post<z.infer<typeof RowResponse>>(tablePath(tableId, 'rows'), { cells }),
    // A new row is the newest, so it lands on the last page: reading the pages again puts it
    // where the server does.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tablesKeys.rows(tableId) }),
  });
}

/** Replaces the row where it is shown, so an edit keeps its place in the pages read. */
function replaceRow(
  pages: InfiniteData<RowsPageBody> | undefined,
  rowId: string,
  next: z.infer<typeof TableRow> | null,
): InfiniteData<RowsPageBody> | undefined {
  if (!pages) return pages;
  return {
    ...pages,
    pages: pages.pages.map((page) => ({
      ...page,
      rows: page.rows.flatMap((row) => (row.id !== rowId ? [row] : next ? [next] : [])),
    })),
  };
}

export function useUpdateRow(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ rowId, cells }: { rowId: string; cells: Cells }) =>
      api.patch<z.infer<typeof RowResponse>>(
        tablePath(tableId, `rows/${encodeURIComponent(rowId)}`),
        { cells },
      ),
    onSuccess: ({ row }) =>
      queryClient.setQueryData<InfiniteData<RowsPageBody>>(tablesKeys.rows(tableId), (pages) =>
        replaceRow(pages, row.id, row),
      ),
  });
}

export function useDeleteRow(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (rowId: string) =>
      api.delete<void>(tablePath(tableId, `rows/${encodeURIComponent(rowId)}`)),
    onSuccess: (_nothing, rowId) =>
      queryClient.setQueryData<InfiniteData<RowsPageBody>>(tablesKeys.rows(tableId), (pages) =>
        replaceRow(pages, rowId, null),
      ),
  });
}

/** Spec endpoint 5: first names stay in the source, last names go to the target. */
export function useSplitName(tableId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SplitNameBody) =>
      api.post<SplitNameResponse>(tablePath(tableId, 'split-name'), body),
    onSuccess: async (result) => {
      queryClient.setQueryData<TableWithProperties>(tablesKeys.table(tableId), (previous) =>
        previous ? { ...previous, properties: result.properties } : previous,
      );
      await queryClient.invalidateQueries({ queryKey: tablesKeys.rows(tableId) });
    },
  });
}
