import { useState, type FormEvent } from 'react';
import { Button } from './button';
import { ErrorMessage } from './error-message';
import { Panel } from './panel';
import { TextField } from './text-field';

export interface RenamePanelProps {
  /** The panel's heading ("Rename the table"). */
  title: string;
  /** The field's label ("Table name"). */
  label: string;
  value: string;
  busy: boolean;
  /** The failed save's error, shown above the field. */
  error: unknown;
  onSave(value: string): void;
  onCancel(): void;
}

/** A record's one-line name, changed in place: opens focused, refuses an empty name. */
export function RenamePanel(props: RenamePanelProps) {
  const [value, setValue] = useState(props.value);
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const trimmed = value.trim();
    setEmpty(!trimmed);
    if (trimmed) props.onSave(trimmed);
  };
  return (
    <Panel title={props.title}>
      <form onSubmit={submit} noValidate>
        {props.error != null && <ErrorMessage error={props.error} />}
        <TextField
          label={props.label}
          value={value}
          error={empty ? 'Enter a value.' : undefined}
          autoComplete="off"
          autoFocus
          onChange={(event) => setValue(event.target.value)}
        />
        <div className="button-row">
          <Button type="submit" variant="primary" busy={props.busy}>
            Save
          </Button>
          <Button onClick={props.onCancel}>Cancel</Button>
        </div>
      </form>
    </Panel>
  );
}
