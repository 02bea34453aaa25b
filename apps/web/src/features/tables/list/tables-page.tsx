import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { CreateTableBody } from '@wap/contracts';
import { Button, ErrorMessage, PagedRecordList, RecordsPage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { appPaths, useWorkspaceId } from '../../../lib/routing';
import { useCreateTable, useTablesList } from '../api/tables-api';
import '../tables.css';

/** `/tables`: the workspace's tables, newest first, and a form that creates one. */
export function TablesPage() {
  const workspaceId = useWorkspaceId();
  return (
    <RecordsPage
      title="Tables"
      description="Keep lists of contacts, leads or anything else in typed columns."
      noun="table"
      createForm={<CreateTableForm workspaceId={workspaceId} />}
      list={<TablesList workspaceId={workspaceId} />}
    />
  );
}

function TablesList(props: { workspaceId: string }) {
  return (
    <PagedRecordList
      query={useTablesList(props.workspaceId)}
      itemsOf={(page) => page.tables}
      noun="tables"
      empty={{ title: 'No tables yet', hint: 'Name your first table above, then give it columns.' }}
    >
      {(table) => (
        <>
          <Link to={appPaths.workspace(props.workspaceId, `tables/${table.id}`)}>{table.name}</Link>{' '}
          <span className="tables-muted">created {formatDay(table.created_at)}</span>
        </>
      )}
    </PagedRecordList>
  );
}

function formatDay(iso: string): string {
  return new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

function CreateTableForm(props: { workspaceId: string }) {
  const [name, setName] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const createTable = useCreateTable();
  const navigate = useNavigate();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreateTableBody, { workspaceId: props.workspaceId, name });
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    createTable.mutate(result.data, {
      onSuccess: ({ table }) =>
        void navigate(appPaths.workspace(props.workspaceId, `tables/${table.id}`)),
    });
  };
  return (
    <form onSubmit={submit} noValidate>
      {createTable.isError && <ErrorMessage error={createTable.error} />}
      <TextField
        label="Table name"
        hint="For example Leads or Event guests."
        value={name}
        error={errors['name']}
        onChange={(event) => setName(event.target.value)}
      />
      <Button type="submit" variant="primary" busy={createTable.isPending}>
        Create table
      </Button>
    </form>
  );
}
