import { Link, Navigate, useParams } from 'react-router';
import { ErrorMessage, LoadingState, PageHeader, Panel } from '../../../components';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useTable } from '../api/tables-api';
import { PROPERTY_TYPE_LABELS } from './properties';
import { PropertyForm } from './property-form';
import { RowForm } from './row-form';
import { RowsGrid } from './rows-grid';
import { SplitNamePanel } from './split-name-panel';
import '../tables.css';

/** `/tables/:tableId`: the rows, and the forms that add columns and rows and split names. */
export function TablePage() {
  const workspaceId = useWorkspaceId();
  const { tableId = '' } = useParams();
  const table = useTable(tableId);

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
  return (
    <>
      <PageHeader
        title={table.data.table.name}
        description={`${properties.length} ${properties.length === 1 ? 'column' : 'columns'}`}
        actions={backLink}
      />
      <Panel title="Rows">
        <RowsGrid tableId={tableId} tableName={table.data.table.name} properties={properties} />
      </Panel>
      {properties.length > 0 && (
        <Panel title="Add a row">
          <RowForm tableId={tableId} properties={properties} />
        </Panel>
      )}
      <Panel title="Columns">
        {properties.length > 0 && (
          <ul className="tables-column-list">
            {properties.map((property) => (
              <li key={property.id}>
                <span className="tables-column-list__name">{property.name}</span>{' '}
                <span className="tables-muted">
                  {PROPERTY_TYPE_LABELS[property.type]}
                  {property.is_hidden ? ', hidden' : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
        <h3>Add a column</h3>
        <PropertyForm tableId={tableId} />
      </Panel>
      <SplitNamePanel tableId={tableId} properties={properties} />
    </>
  );
}
