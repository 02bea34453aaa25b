import { useState, type FormEvent } from 'react';
import type { TableProperty } from '@wap/contracts';
import { Button, ErrorMessage, TextField } from '../../../components';
import { useUpdateProperty } from '../api/tables-api';
import { CheckboxField } from './checkbox-field';
import { optionsOf } from './properties';
import { toOptions } from './property-form';

/**
 * Changes a column: its name, whether it is shown, and a select's options. The type stays;
 * an option taken away is emptied from the rows that held it, as the hint says.
 */
export function ColumnEditor(props: {
  tableId: string;
  property: TableProperty;
  onDone: () => void;
}) {
  const { property } = props;
  const hasOptions = property.type === 'select' || property.type === 'multi_select';
  const current = optionsOf(property);
  const [name, setName] = useState(property.name);
  const [hidden, setHidden] = useState(property.is_hidden);
  const [options, setOptions] = useState(current.map((option) => option.name).join(', '));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const updateProperty = useUpdateProperty(props.tableId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    if (!name.trim()) found['name'] = 'Enter a name.';
    if (hasOptions && !options.trim()) found['options'] = 'Enter at least one option.';
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    updateProperty.mutate(
      {
        propertyId: property.id,
        name: name.trim(),
        is_hidden: hidden,
        ...(hasOptions
          ? { config: { ...property.config, options: toOptions(options, current) } }
          : {}),
      },
      { onSuccess: props.onDone },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label={`Edit column ${property.name}`}>
      {updateProperty.isError && <ErrorMessage error={updateProperty.error} />}
      <div className="tables-form-grid">
        <TextField
          label="Column name"
          value={name}
          error={errors['name']}
          autoComplete="off"
          autoFocus
          onChange={(event) => setName(event.target.value)}
        />
        {hasOptions && (
          <TextField
            label="Options"
            hint="Separate them with commas. An option taken away is emptied from its rows."
            value={options}
            error={errors['options']}
            autoComplete="off"
            onChange={(event) => setOptions(event.target.value)}
          />
        )}
      </div>
      <CheckboxField label="Hide this column" checked={hidden} onChange={setHidden} />
      <div className="button-row">
        <Button type="submit" variant="primary" busy={updateProperty.isPending}>
          Save column
        </Button>
        <Button onClick={props.onDone}>Cancel</Button>
      </div>
    </form>
  );
}
