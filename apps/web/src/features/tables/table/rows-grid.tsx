import { useId } from 'react';
import type { TableProperty, TableRow } from '@wap/contracts';
import { Button, EmptyState, ErrorMessage, LoadingState } from '../../../components';
import { useRows } from '../api/tables-api';
import { cellText } from './properties';

/** The table's rows as a grid, oldest first, a page at a time. */
export function RowsGrid(props: {
  tableId: string;
  tableName: string;
  properties: TableProperty[];
}) {
  const rows = useRows(props.tableId);
  const captionId = useId();
  const columns = props.properties.filter((property) => !property.is_hidden);

  if (rows.isPending) return <LoadingState label="Loading the rows…" />;
  // A failed "Load more" keeps the rows already shown; only a failed first page has none.
  if (!rows.data) return <ErrorMessage error={rows.error} />;
  const all = rows.data.pages.flatMap((page) => page.rows);
  if (columns.length === 0) {
    return (
      <EmptyState title="No columns yet">
        <p>Add a column below, then add rows to fill it.</p>
      </EmptyState>
    );
  }
  return (
    <>
      {/* Focusable, so a keyboard can scroll a table wider than a phone. */}
      <div className="tables-table-scroll" role="region" aria-labelledby={captionId} tabIndex={0}>
        <table className="data-table tables-grid">
          <caption id={captionId} className="visually-hidden">
            Rows of {props.tableName}
          </caption>
          <thead>
            <tr>
              {columns.map((property) => (
                <th key={property.id} scope="col">
                  {property.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {all.map((row) => (
              <tr key={row.id}>
                {columns.map((property) => (
                  <td key={property.id}>
                    <Cell property={property} row={row} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {all.length === 0 && <p className="tables-muted">No rows yet. Add the first one below.</p>}
      {rows.isError && <ErrorMessage error={rows.error} />}
      <div className="tables-paging">
        <p className="tables-muted" aria-live="polite">
          {all.length > 0 &&
            `Showing ${all.length} ${all.length === 1 ? 'row' : 'rows'}${rows.hasNextPage ? '' : ', all of them'}.`}
        </p>
        {rows.hasNextPage && (
          <Button busy={rows.isFetchingNextPage} onClick={() => void rows.fetchNextPage()}>
            Load more rows
          </Button>
        )}
      </div>
    </>
  );
}

function Cell(props: { property: TableProperty; row: TableRow }) {
  const value = props.row.cells[props.property.id];
  const text = cellText(props.property, value);
  if (!text) return null;
  if (props.property.type === 'url' && typeof value === 'string' && /^https?:\/\//iu.test(value)) {
    return (
      <a href={value} rel="noreferrer noopener" target="_blank">
        {text}
      </a>
    );
  }
  if (props.property.type === 'email' && typeof value === 'string') {
    return <a href={`mailto:${value}`}>{text}</a>;
  }
  return text;
}
