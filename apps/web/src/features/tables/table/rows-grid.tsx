import { useEffect, useId, useRef, useState } from 'react';
import type { TableProperty, TableRow } from '@wap/contracts';
import { Button, ConfirmButton, EmptyState, ErrorMessage, LoadingState } from '../../../components';
import { useDeleteRow, useRows } from '../api/tables-api';
import { cellText } from './properties';
import { RowForm } from './row-form';

/** The table's rows as a grid, oldest first, a page at a time. */
export function RowsGrid(props: {
  tableId: string;
  tableName: string;
  properties: TableProperty[];
}) {
  const rows = useRows(props.tableId);
  const deleteRow = useDeleteRow(props.tableId);
  const [editing, setEditing] = useState<TableRow | null>(null);
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
          <ColumnHeads columns={columns} />
          <tbody>
            {all.map((row, index) => (
              <tr key={row.id}>
                {columns.map((property) => (
                  <td key={property.id}>
                    <Cell property={property} row={row} />
                  </td>
                ))}
                <td>
                  <RowActions
                    position={index + 1}
                    deleting={deleteRow.isPending && deleteRow.variables === row.id}
                    onEdit={() => setEditing(row)}
                    onDelete={() =>
                      deleteRow.mutate(row.id, {
                        onSuccess: () => setEditing((open) => (open?.id === row.id ? null : open)),
                      })
                    }
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {deleteRow.isError && <ErrorMessage error={deleteRow.error} title="Row not deleted" />}
      {editing && (
        <RowEditor
          key={editing.id}
          tableId={props.tableId}
          properties={props.properties}
          row={editing}
          position={all.findIndex((row) => row.id === editing.id) + 1}
          onDone={() => setEditing(null)}
        />
      )}
      {all.length === 0 && <p className="tables-muted">No rows yet. Add the first one below.</p>}
      {rows.isError && <ErrorMessage error={rows.error} />}
      <RowsPaging rows={rows} shown={all.length} />
    </>
  );
}

function ColumnHeads({ columns }: { columns: TableProperty[] }) {
  return (
    <thead>
      <tr>
        {columns.map((property) => (
          <th key={property.id} scope="col">
            {property.name}
          </th>
        ))}
        <th scope="col">
          <span className="visually-hidden">Actions</span>
        </th>
      </tr>
    </thead>
  );
}

function RowActions(props: {
  /** The row's place in the grid, from 1, which names it to a screen reader. */
  position: number;
  deleting: boolean;
  onEdit: () => void;
  onDelete: () => void;
}) {
  return (
    <div className="button-row tables-row-actions">
      <Button aria-label={`Edit row ${props.position}`} onClick={props.onEdit}>
        Edit
      </Button>
      <ConfirmButton
        label="Delete"
        action={`Delete row ${props.position}`}
        busy={props.deleting}
        onConfirm={props.onDelete}
      />
    </div>
  );
}

function RowsPaging({ rows, shown }: { rows: ReturnType<typeof useRows>; shown: number }) {
  return (
    <div className="tables-paging">
      <p className="tables-muted" aria-live="polite">
        {shown > 0 &&
          `Showing ${shown} ${shown === 1 ? 'row' : 'rows'}${rows.hasNextPage ? '' : ', all of them'}.`}
      </p>
      {rows.hasNextPage && (
        <Button busy={rows.isFetchingNextPage} onClick={() => void rows.fetchNextPage()}>
          Load more rows
        </Button>
      )}
    </div>
  );
}

/** The edit form of one row, scrolled into view with its first field focused when it opens. */
function RowEditor(props: {
  tableId: string;
  properties: TableProperty[];
  row: TableRow;
  position: number;
  onDone: () => void;
}) {
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    section.current?.scrollIntoView({ block: 'nearest' });
    section.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, []);
  return (
    <section ref={section} className="tables-row-editor" aria-label={`Edit row ${props.position}`}>
      <h3>Edit row {props.position}</h3>
      <RowForm
        tableId={props.tableId}
        properties={props.properties}
        row={props.row}
        onDone={props.onDone}
      />
    </section>
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
