import { useState, type FormEvent } from 'react';
import type { TableProperty } from '@wap/contracts';
import { Button, ErrorMessage, Panel, SelectField, StatusMessage } from '../../../components';
import type { FieldErrors } from '../../../lib/forms';
import { useSplitName } from '../api/tables-api';

/**
 * Spec endpoint 5 (decision 63): full names split into a first name, which stays in the
 * source column, and a last name, written to the target column. Both are text columns.
 */
export function SplitNamePanel(props: { tableId: string; properties: TableProperty[] }) {
  const textColumns = props.properties.filter((property) => property.type === 'text');
  const [sourceId, setSourceId] = useState('');
  const [targetId, setTargetId] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const split = useSplitName(props.tableId);
  const nameOf = (id: string) => props.properties.find((property) => property.id === id)?.name;

  const columnOptions = [
    { value: '', label: 'Choose a column' },
    ...textColumns.map((property) => ({ value: property.id, label: property.name })),
  ];

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found: FieldErrors = {};
    if (!sourceId) found['sourcePropertyId'] = 'Choose the column with the full names.';
    if (!targetId) found['targetPropertyId'] = 'Choose the column for the last names.';
    else if (targetId === sourceId) found['targetPropertyId'] = 'Choose a different column.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    split.mutate({ sourcePropertyId: sourceId, targetPropertyId: targetId });
  };

  return (
    <Panel
      title="Split full names"
      description="The first name stays in the full-name column and the last name goes to the other column. Rows whose last-name cell already has a value are left as they are, so running it again changes nothing."
    >
      {textColumns.length < 2 ? (
        <p>Add two text columns first: one with full names, and one for the last names.</p>
      ) : (
        <form onSubmit={submit} noValidate>
          {split.isError && <ErrorMessage error={split.error} title="The names were not split." />}
          <div className="tables-form-grid">
            <SelectField
              label="Column with full names"
              options={columnOptions}
              value={sourceId}
              error={errors['sourcePropertyId']}
              onChange={(event) => setSourceId(event.target.value)}
            />
            <SelectField
              label="Column for last names"
              options={columnOptions}
              value={targetId}
              error={errors['targetPropertyId']}
              onChange={(event) => setTargetId(event.target.value)}
            />
          </div>
          <Button type="submit" variant="primary" busy={split.isPending}>
            Split names
          </Button>
        </form>
      )}
      {split.isSuccess && (
        <div className="tables-split-outcome">
          <StatusMessage>
            <p className="notice__title">
              Split {nameOf(split.variables.sourcePropertyId) ?? 'the names'} into{' '}
              {nameOf(split.variables.targetPropertyId) ?? 'the last-name column'}.
            </p>
            <dl className="tables-split-result">
              <div>
                <dt>Names processed</dt>
                <dd>{split.data.cellsProcessed}</dd>
              </div>
              <div>
                <dt>Cells written</dt>
                <dd>{split.data.cellsWritten}</dd>
              </div>
              <div>
                <dt>Last-name column updated</dt>
                <dd>{split.data.targetPropertyUpdated ? 'Yes' : 'No'}</dd>
              </div>
            </dl>
          </StatusMessage>
        </div>
      )}
    </Panel>
  );
}
