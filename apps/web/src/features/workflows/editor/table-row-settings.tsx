import { useId, useRef } from 'react';
import type { TableProperty } from '@wap/contracts';
import { ErrorMessage, LoadingState, SelectField } from '../../../components';
import { useTable } from '../../tables';
import { useTableChoices } from '../api/workflows-api';
import { isRecord } from '../schema-form/json-schema';
import type { PathErrors } from '../schema-form/schema-form';
import { VariablePicker } from '../schema-form/variable-picker';

export interface TableRowSettingsProps {
  workspaceId: string;
  settings: Record<string, unknown>;
  errors: PathErrors;
  onChange: (settings: Record<string, unknown>) => void;
}

/**
 * A table-row step: a table picked from the workspace's, then one field per column, saved in
 * `values` by column id (the runner also accepts names: a step written through the API with
 * names shows them in their columns and is rewritten by id on change).
 */
export function TableRowSettings(props: TableRowSettingsProps) {
  const tableId = typeof props.settings['tableId'] === 'string' ? props.settings['tableId'] : '';
  const tables = useTableChoices(props.workspaceId);
  const chosen = useTable(tableId || undefined);
  const values = isRecord(props.settings['values']) ? props.settings['values'] : {};

  if (tables.isPending) return <LoadingState label="Loading the workspace's tables…" />;
  if (tables.isError)
    return <ErrorMessage error={tables.error} title="Could not load the tables" />;
  const options = tables.data.tables.map((table) => ({ value: table.id, label: table.name }));
  if (chosen.data && !options.some((option) => option.value === tableId)) {
    options.push({ value: tableId, label: chosen.data.table.name });
  }
  if (options.length === 0) {
    return (
      <p className="wf-step__notice">
        This workspace has no tables yet: create one under Tables, then come back.
      </p>
    );
  }
  const columns = chosen.data?.properties ?? [];
  const valueOf = (column: TableProperty) => values[column.id] ?? values[column.name];
  const setValue = (column: TableProperty, value: unknown) => {
    const next = { ...values };
    delete next[column.name];
    if (value === undefined) delete next[column.id];
    else next[column.id] = value;
    props.onChange({ ...props.settings, values: next });
  };
  return (
    <div className="schema-form">
      <SelectField
        label="Table"
        value={tableId}
        error={props.errors['tableId']}
        options={[{ value: '', label: 'Choose…' }, ...options]}
        onChange={(event) =>
          props.onChange({ tableId: event.target.value || undefined, values: {} })
        }
      />
      {tableId && chosen.isPending && <LoadingState label="Loading the table's columns…" />}
      {tableId && chosen.isError && (
        <ErrorMessage error={chosen.error} title="Could not load this table" />
      )}
      {chosen.data && (
        <fieldset className="schema-form__group">
          <legend className="field__label">Values of the new row</legend>
          {columns.length === 0 && <p>This table has no columns yet.</p>}
          {columns.map((column) => (
            <ColumnField
              key={column.id}
              column={column}
              value={valueOf(column)}
              error={props.errors[`values.${column.id}`] ?? props.errors[`values.${column.name}`]}
              onChange={(value) => setValue(column, value)}
            />
          ))}
        </fieldset>
      )}
    </div>
  );
}

interface ColumnFieldProps {
  column: TableProperty;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}

function optionsOf(column: TableProperty): { id: string; name: string }[] {
  const options = column.config['options'];
  return Array.isArray(options)
    ? options.flatMap((option: unknown) =>
        isRecord(option) && typeof option['id'] === 'string'
          ? [{ id: option['id'], name: String(option['name'] ?? option['id']) }]
          : [],
      )
    : [];
}

const COLUMN_HINTS: Partial<Record<TableProperty['type'], string>> = {
  number: 'A number, or a variable holding one.',
  date: 'An ISO 8601 date such as 2026-11-27, or a variable holding one.',
  email: 'An email address, or a variable holding one.',
  url: 'An absolute URL, or a variable holding one.',
};

/** One column's field: a choice for checkboxes and selects, text (with variables) otherwise. */
function ColumnField(props: ColumnFieldProps) {
  const { column } = props;
  if (column.type === 'checkbox') {
    return (
      <SelectField
        label={column.name}
        value={props.value === true ? 'true' : props.value === false ? 'false' : ''}
        error={props.error}
        options={[
          { value: '', label: 'Leave empty' },
          { value: 'true', label: 'Checked' },
          { value: 'false', label: 'Not checked' },
        ]}
        onChange={(event) =>
          props.onChange(event.target.value === '' ? undefined : event.target.value === 'true')
        }
      />
    );
  }
  if (column.type === 'select') {
    return (
      <SelectField
        label={column.name}
        value={typeof props.value === 'string' ? props.value : ''}
        error={props.error}
        options={[
          { value: '', label: 'Leave empty' },
          ...optionsOf(column).map((option) => ({ value: option.id, label: option.name })),
        ]}
        onChange={(event) => props.onChange(event.target.value || undefined)}
      />
    );
  }
  if (column.type === 'multi_select') {
    const chosen = Array.isArray(props.value) ? props.value : [];
    return (
      <fieldset className="schema-form__group">
        <legend className="field__label">{column.name}</legend>
        {props.error && <p className="field__error">{props.error}</p>}
        {optionsOf(column).map((option) => (
          <label key={option.id} className="schema-form__choice">
            <input
              type="checkbox"
              checked={chosen.includes(option.id)}
              onChange={(event) => {
                const next = event.target.checked
                  ? [...chosen, option.id]
                  : chosen.filter((id) => id !== option.id);
                props.onChange(next.length > 0 ? next : undefined);
              }}
            />
            {option.name}
          </label>
        ))}
      </fieldset>
    );
  }
  return <TemplatedColumnField {...props} />;
}

/**
 * A text-like column: the text as typed, a variable inserted at the cursor; a number column
 * keeps a plain number as a number and anything with a variable as text for the runner to fill.
 */
function TemplatedColumnField(props: ColumnFieldProps) {
  const id = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const { column } = props;
  const text =
    typeof props.value === 'string' || typeof props.value === 'number' ? String(props.value) : '';
  const hint = COLUMN_HINTS[column.type];
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const accept = (next: string) => {
    if (next === '') props.onChange(undefined);
    // "1." on its way to "1.5" stays text until it reads back as the same number.
    else if (column.type === 'number' && String(Number(next)) === next)
      props.onChange(Number(next));
    else props.onChange(next);
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {column.name}
      </label>
      <div className="schema-form__templated">
        <input
          ref={inputRef}
          id={id}
          type="text"
          className="field__input"
          inputMode={column.type === 'number' ? 'decimal' : undefined}
          autoComplete="off"
          value={text}
          aria-invalid={props.error ? true : undefined}
          aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
          onChange={(event) => accept(event.target.value)}
        />
        <VariablePicker target={inputRef} label={column.name} text={text} onText={accept} />
      </div>
      {hint && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}
