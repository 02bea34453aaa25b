import type { ReactNode } from 'react';
import { Button } from './button';
import { EmptyState } from './empty-state';
import { ErrorMessage } from './error-message';
import { LoadingState } from './loading-state';

/** What the list reads of a workspace list's infinite query (pages of a paged GET). */
interface PagedQuery<Page> {
  data: { pages: Page[] } | undefined;
  error: unknown;
  isPending: boolean;
  isError: boolean;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => Promise<unknown>;
}

/**
 * A workspace's records, page after page, with "Load more". A failed "Load more" keeps the
 * records already shown; only a failed first page shows none.
 */
export function PagedRecordList<Page, Item extends { id: string }>(props: {
  query: PagedQuery<Page>;
  itemsOf: (page: Page) => readonly Item[];
  /** The records' plural name in the labels: "Loading the tables…", "Load more tables". */
  noun: string;
  empty: { title: string; hint: string };
  children: (item: Item) => ReactNode;
}) {
  const { query, noun } = props;
  if (query.isPending) return <LoadingState label={`Loading the ${noun}…`} />;
  if (!query.data) return <ErrorMessage error={query.error} />;
  const all = query.data.pages.flatMap(props.itemsOf);
  if (all.length === 0) {
    return (
      <EmptyState title={props.empty.title}>
        <p>{props.empty.hint}</p>
      </EmptyState>
    );
  }
  return (
    <>
      <ul className="record-list">
        {all.map((item) => (
          <li key={item.id}>{props.children(item)}</li>
        ))}
      </ul>
      {query.isError && <ErrorMessage error={query.error} />}
      {query.hasNextPage && (
        <Button busy={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
          Load more {noun}
        </Button>
      )}
    </>
  );
}
