import { useState } from 'react';
import { Link, Navigate, useNavigate, useParams } from 'react-router';
import type { TableProperty } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  LoadingState,
  PageHeader,
  Panel,
  RenamePanel,
} from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useDeleteProperty, useDeleteTable, useRenameTable, useTable } from '../api/tables-api';
import { ColumnEditor } from './column-editor';
import { PROPERTY_TYPE_LABELS } from './properties';
import { PropertyForm } from './property-form';
import { RowForm } from './row-form';
import { RowsGrid } from './rows-grid';
import { SplitNamePanel } from './split-name-panel';
import '../tables.css';

/** `/tables/:tableId`: the rows, and the forms that add, change and delete columns and rows. */
export function TablePage() {
  const workspaceId = useWorkspaceId();
  const { tableId = '' } = useParams();
  const table = useTable(tableId);
  const [renaming, setRenaming] = useState(false);

  const backLink = <Link to={appPaths.workspace(workspaceId, 'tables')}>All tables</Link>;
  if (table.isPending) return <LoadingState label="Loading the table…" />;
  if (table.isError) {
    return (
      <>
        <PageHeader title="Table" actions={backLink} />
        <ErrorMessage error={table.error} />
      </>
    );
  }
  const { properties } = table.data;
  // A link into another of the person's workspaces opens the table where it lives.
  if (table.data.table.workspace_id !== workspaceId) {
    return (
      <Navigate
        to={appPaths.workspace(table.data.table.workspace_id, `tables/${tableId}`)}
        replace
      />
    );
  }
  const name = table.data.table.name;
  return (
    <>
      <PageHeader
        title={name}
        description={`${properties.length} ${properties.length === 1 ? 'column' : 'columns'}`}
        actions={
          <div className="button-row">
            {backLink}
            <Button onClick={() => setRenaming(true)}>Rename</Button>
            <DeleteTableButton workspaceId={workspaceId} tableId={tableId} name={name} />
          </div>
        }
      />
      {renaming && (
        <RenameTableForm tableId={tableId} name={name} onDone={() => setRenaming(false)} />
      )}
      <Panel title="Rows">
        <RowsGrid tableId={tableId} tableName={name} properties={properties} />
      </Panel>
      {properties.length > 0 && (
        <Panel title="Add a row">
          <RowForm tableId={tableId} properties={properties} />
        </Panel>
      )}
      <Panel title="Columns">
        {properties.length > 0 && <ColumnList tableId={tableId} properties={properties} />}
        <h3>Add a column</h3>
        <PropertyForm tableId={tableId} />
      </Panel>
      <SplitNamePanel tableId={tableId} properties={properties} />
    </>
  );
}

function RenameTableForm(props: { tableId: string; name: string; onDone: () => void }) {
  const renameTable = useRenameTable(props.tableId);
  return (
    <RenamePanel
      title="Rename the table"
      label="Table name"
      value={props.name}
      busy={renameTable.isPending}
      error={renameTable.error}
      onSave={(name) => renameTable.mutate(name, { onSuccess: props.onDone })}
      onCancel={props.onDone}
    />
  );
}

function DeleteTableButton(props: { workspaceId: string; tableId: string; name: string }) {
  const deleteTable = useDeleteTable(props.workspaceId, props.tableId);
  const navigate = useNavigate();
  return (
    <>
      {deleteTable.isError && <ErrorMessage error={deleteTable.error} title="Table not deleted" />}
      <ConfirmButton
        label="Delete table"
        action={`Delete ${props.name} and all its rows`}
        busy={deleteTable.isPending}
        onConfirm={() =>
          deleteTable.mutate(undefined, {
            onSuccess: () => void navigate(appPaths.workspace(props.workspaceId, 'tables')),
          })
        }
      />
    </>
  );
}

function ColumnList(props: { tableId: string; properties: TableProperty[] }) {
  const [editing, setEditing] = useState<string | null>(null);
  const deleteProperty = useDeleteProperty(props.tableId);
  return (
    <>
      {deleteProperty.isError && (
        <ErrorMessage error={deleteProperty.error} title="Column not deleted" />
      )}
      <ul className="tables-column-list">
        {props.properties.map((property) => (
          <li key={property.id}>
            {editing === property.id ? (
              <ColumnEditor
                tableId={props.tableId}
                property={property}
                onDone={() => setEditing(null)}
              />
            ) : (
              <div className="tables-column-list__item">
                <span>
                  <span className="tables-column-list__name">{property.name}</span>{' '}
                  <span className="tables-muted">
                    {PROPERTY_TYPE_LABELS[property.type]}
                    {property.is_hidden ? ', hidden' : ''}
                  </span>
                </span>
                <span className="button-row tables-row-actions">
                  <Button
                    aria-label={`Edit column ${property.name}`}
                    onClick={() => setEditing(property.id)}
                  >
                    Edit
                  </Button>
                  <ConfirmButton
                    label="Delete"
                    action={`Delete column ${property.name} and its cells`}
                    busy={deleteProperty.isPending && deleteProperty.variables === property.id}
                    onConfirm={() => deleteProperty.mutate(property.id)}
                  />
                </span>
              </div>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
