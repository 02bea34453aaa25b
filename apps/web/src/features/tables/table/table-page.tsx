import { useState, type ReactElement } from 'react';
import { useNavigate, useParams } from 'react-router';
import type { TableProperty } from '@wap/contracts';
import {
  Button,
  ConfirmButton,
  ErrorMessage,
  PageHeader,
  Panel,
  RenamePanel,
} from '../../../components';
import { appPaths, RecordFrame, useWorkspaceId } from '../../../lib/routing';
import {
  useDeleteProperty,
  useDeleteTable,
  useRenameTable,
  useTable,
  type TableWithProperties,
} from '../api/tables-api';
import { ColumnEditor } from './column-editor';
import { PROPERTY_TYPE_LABELS } from './properties';
import { PropertyForm } from './property-form';
import { RowForm } from './row-form';
import { RowsGrid } from './rows-grid';
import { SplitNamePanel } from './split-name-panel';
import '../tables.css';

/** `/tables/:tableId`: the rows, and the forms that add, change and delete columns and rows. */
export function TablePage() {
  const { tableId = '' } = useParams();
  return (
    <RecordFrame
      query={useTable(tableId)}
      noun="Table"
      list={{ path: 'tables', label: 'All tables' }}
      recordPath={`tables/${tableId}`}
      workspaceIdOf={(data) => data.table.workspace_id}
    >
      {(data, backLink) => (
        <TableView table={data.table} properties={data.properties} backLink={backLink} />
      )}
    </RecordFrame>
  );
}

function TableView(props: {
  table: TableWithProperties['table'];
  properties: TableProperty[];
  backLink: ReactElement;
}) {
  const { properties, backLink } = props;
  const workspaceId = useWorkspaceId();
  const tableId = props.table.id;
  const [renaming, setRenaming] = useState(false);
  const name = props.table.name;
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
