import { useId } from 'react';
import { Button, TextField } from '../../../components';
import type { HeaderRow, ServerFormErrors } from './server-form-model';

let nextRowKey = 1;

/** A new blank header row with a key of its own. */
export function blankHeaderRow(): HeaderRow {
  return { key: nextRowKey++, name: '', value: '' };
}

/**
 * Free-form headers as key/value rows. Their values are sealed like credentials and never shown
 * again, so the value inputs start empty even when editing.
 */
export function HeadersEditor(props: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  error?: string;
  rowErrors?: ServerFormErrors['headerRows'];
}) {
  const errorId = useId();
  const update = (key: number, change: Partial<HeaderRow>) =>
    props.onChange(props.rows.map((row) => (row.key === key ? { ...row, ...change } : row)));
  return (
    <fieldset
      className="mcp-form__group"
      aria-describedby={props.error ? errorId : undefined}
      aria-invalid={props.error ? true : undefined}
    >
      <legend className="field__label">Headers</legend>
      <p className="field__hint">
        Sent with every request to the server, for example an organisation id. They are stored
        encrypted and their values are never shown again.
      </p>
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
      {props.rows.length > 0 && (
        <ol className="mcp-header-rows">
          {props.rows.map((row, index) => (
            <li key={row.key}>
              <fieldset className="mcp-header-row">
                <legend className="visually-hidden">Header {index + 1}</legend>
                <TextField
                  label="Header name"
                  autoComplete="off"
                  spellCheck={false}
                  value={row.name}
                  error={props.rowErrors?.[row.key]?.name}
                  onChange={(event) => update(row.key, { name: event.target.value })}
                />
                <TextField
                  label="Header value"
                  autoComplete="off"
                  spellCheck={false}
                  value={row.value}
                  error={props.rowErrors?.[row.key]?.value}
                  onChange={(event) => update(row.key, { value: event.target.value })}
                />
                <Button
                  className="mcp-header-row__remove"
                  aria-label={`Remove header ${index + 1}`}
                  onClick={() => props.onChange(props.rows.filter(({ key }) => key !== row.key))}
                >
                  Remove
                </Button>
              </fieldset>
            </li>
          ))}
        </ol>
      )}
      <Button onClick={() => props.onChange([...props.rows, blankHeaderRow()])}>Add header</Button>
    </fieldset>
  );
}
