import { useState, type FormEvent } from 'react';
import type { Cells, TableProperty, TableRow } from '@wap/contracts';
import { Button, ErrorMessage, SelectField, StatusMessage, TextField } from '../../../components';
import type { FieldErrors } from '../../../lib/forms';
import { useCreateRow, useUpdateRow } from '../api/tables-api';
import { CheckboxField } from './checkbox-field';
import { optionsOf } from './properties';

/** The key of an error about the whole row rather than one field. */
const FORM_ERROR = '';

type FieldValue = string | boolean | string[];
type Values = Record<string, FieldValue>;

/**
 * A form with one field per column. A new row is sent with the cells that were filled in; an
 * edited `row` starts from its cells and sends every shown column, an emptied field as null.
 */
export function RowForm(props: {
  tableId: string;
  properties: TableProperty[];
  row?: TableRow;
  onDone?: () => void;
}) {
  const columns = props.properties.filter((property) => !property.is_hidden);
  const [values, setValues] = useState<Values>(() =>
    props.row ? valuesOf(props.row, columns) : {},
  );
  const [errors, setErrors] = useState<FieldErrors>({});
  const createRow = useCreateRow(props.tableId);
  const updateRow = useUpdateRow(props.tableId);
  const saving = props.row ? updateRow : createRow;
  const set = (propertyId: string, value: FieldValue) =>
    setValues((previous) => ({ ...previous, [propertyId]: value }));

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // A message of the previous submission is no longer true of this one.
    saving.reset();
    const result = toCells(columns, values, props.row ? 'null' : 'left out');
    setErrors(result.ok ? {} : result.errors);
    if (!result.ok) return;
    if (props.row) {
      updateRow.mutate({ rowId: props.row.id, cells: result.cells }, { onSuccess: props.onDone });
    } else {
      createRow.mutate(result.cells, { onSuccess: () => setValues({}) });
    }
  };

  return (
    <form onSubmit={submit} noValidate>
      {saving.isError && <ErrorMessage error={saving.error} />}
      {createRow.isSuccess && <StatusMessage>Row added.</StatusMessage>}
      {errors[FORM_ERROR] && (
        <p className="field__error" role="alert">
          {errors[FORM_ERROR]}
        </p>
      )}
      <div className="tables-form-grid">
        {columns.map((property) => (
          <CellField
            key={property.id}
            property={property}
            value={values[property.id]}
            error={errors[property.id]}
            onChange={(value) => set(property.id, value)}
          />
        ))}
      </div>
      <div className="button-row">
        <Button type="submit" variant="primary" busy={saving.isPending}>
          {props.row ? 'Save row' : 'Add row'}
        </Button>
        {props.onDone && <Button onClick={props.onDone}>Cancel</Button>}
      </div>
    </form>
  );
}

/** A row's cells as the form's values: numbers as text, a date with time in local time. */
function valuesOf(row: TableRow, columns: TableProperty[]): Values {
  const values: Values = {};
  for (const property of columns) {
    const cell = row.cells[property.id];
    if (typeof cell === 'boolean') values[property.id] = cell;
    else if (Array.isArray(cell)) values[property.id] = cell.map(String);
    else if (typeof cell === 'number') values[property.id] = String(cell);
    else if (typeof cell === 'string') {
      values[property.id] =
        property.type === 'date' && property.config['includeTime'] === true
          ? localDateTime(cell)
          : cell;
    }
  }
  return values;
}

/** An instant as a datetime-local field shows it: the person's local time, to the minute. */
function localDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** A multi-select cell: one checkbox per option of its column. */
function MultiSelectField({
  property,
  value,
  onChange,
}: {
  property: TableProperty;
  value: FieldValue | undefined;
  onChange: (value: FieldValue) => void;
}) {
  const chosen = Array.isArray(value) ? value : [];
  const options = optionsOf(property);
  return (
    <fieldset className="field tables-choice-group">
      <legend className="field__label">{property.name}</legend>
      {options.length === 0 && <p className="field__hint">This column has no options.</p>}
      {options.map((option) => (
        <CheckboxField
          key={option.id}
          label={option.name}
          checked={chosen.includes(option.id)}
          onChange={(checked) =>
            onChange(checked ? [...chosen, option.id] : chosen.filter((id) => id !== option.id))
          }
        />
      ))}
    </fieldset>
  );
}

function CellField(props: {
  property: TableProperty;
  value: FieldValue | undefined;
  error: string | undefined;
  onChange: (value: FieldValue) => void;
}) {
  const { property, value, error, onChange } = props;
  const text = typeof value === 'string' ? value : '';
  switch (property.type) {
    case 'checkbox':
      return <CheckboxField label={property.name} checked={value === true} onChange={onChange} />;
    case 'select':
      return (
        <SelectField
          label={property.name}
          value={text}
          error={error}
          options={[
            { value: '', label: 'None' },
            ...optionsOf(property).map((option) => ({ value: option.id, label: option.name })),
          ]}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case 'multi_select':
      return <MultiSelectField property={property} value={value} onChange={onChange} />;
    case 'date': {
      const includeTime = property.config['includeTime'] === true;
      return (
        <TextField
          label={property.name}
          type={includeTime ? 'datetime-local' : 'date'}
          value={text}
          error={error}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    }
    case 'number':
      return (
        <TextField
          label={property.name}
          type="number"
          inputMode="decimal"
          step="any"
          value={text}
          error={error}
          onChange={(event) => onChange(event.target.value)}
        />
      );
    case 'email':
    case 'url':
    case 'text':
    case 'phone':
      return (
        <TextField
          label={property.name}
          type={property.type === 'phone' ? 'tel' : property.type}
          value={text}
          error={error}
          autoComplete="off"
          onChange={(event) => onChange(event.target.value)}
        />
      );
  }
}

/**
 * The cells of the row, checked as storage checks them (decision 60), so a mistake is shown
 * at its field. An empty field is left out of a new row and empties the cell of an edited one.
 */
function toCells(
  columns: TableProperty[],
  values: Values,
  emptyField: 'left out' | 'null',
): { ok: true; cells: Cells } | { ok: false; errors: FieldErrors } {
  const cells: Cells = {};
  const errors: FieldErrors = {};
  for (const property of columns) {
    const value = values[property.id];
    if (property.type === 'checkbox') {
      cells[property.id] = value === true;
      continue;
    }
    if (Array.isArray(value) && value.length > 0) {
      cells[property.id] = value;
      continue;
    }
    const text = typeof value === 'string' ? value.trim() : '';
    if (!text) {
      if (emptyField === 'null') cells[property.id] = null;
      continue;
    }
    switch (property.type) {
      case 'number': {
        const number = Number(text);
        if (Number.isFinite(number)) cells[property.id] = number;
        else errors[property.id] = 'Enter a number.';
        break;
      }
      case 'email':
        if (/^[^\s@]+@[^\s@]+$/u.test(text)) cells[property.id] = text;
        else errors[property.id] = 'Enter an email address, like name@example.com.';
        break;
      case 'url':
        if (isAbsoluteUrl(text)) cells[property.id] = text;
        else errors[property.id] = 'Enter a full address, like https://example.com.';
        break;
      case 'date': {
        // datetime-local has no zone: it is the person's local time, sent as an instant.
        const date = new Date(text.length > 10 ? text : `${text}T00:00:00Z`);
        if (Number.isNaN(date.getTime())) errors[property.id] = 'Enter a date.';
        else cells[property.id] = text.length > 10 ? date.toISOString() : text;
        break;
      }
      case 'text':
      case 'phone':
      case 'select':
      case 'multi_select':
        cells[property.id] = text;
        break;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  if (emptyField === 'left out' && Object.values(cells).every((cell) => cell === false)) {
    return { ok: false, errors: { [FORM_ERROR]: 'Fill in at least one field.' } };
  }
  return { ok: true, cells };
}

function isAbsoluteUrl(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}
