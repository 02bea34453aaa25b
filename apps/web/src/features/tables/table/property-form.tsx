import { useState, type FormEvent } from 'react';
import { CreatePropertyBody, PROPERTY_TYPES, type PropertyType } from '@wap/contracts';
import { Button, ErrorMessage, SelectField, StatusMessage, TextField } from '../../../components';
import { validateForm, type FieldErrors } from '../../../lib/forms';
import { useCreateProperty } from '../api/tables-api';
import { CheckboxField } from './checkbox-field';
import { PROPERTY_TYPE_LABELS } from './properties';

const TYPE_OPTIONS = PROPERTY_TYPES.map((type) => ({
  value: type,
  label: PROPERTY_TYPE_LABELS[type],
}));

const NUMBER_FORMATS = [
  { value: 'plain', label: 'Plain number' },
  { value: 'currency', label: 'Currency' },
  { value: 'percent', label: 'Percent' },
] as const;

/** What a column's type needs, as typed so far. */
interface TypeSettings {
  numberFormat: string;
  decimals: string;
  options: string;
  includeTime: boolean;
}

const NO_SETTINGS: TypeSettings = {
  numberFormat: 'plain',
  decimals: '',
  options: '',
  includeTime: false,
};

function configOf(type: PropertyType, settings: TypeSettings): Record<string, unknown> {
  switch (type) {
    case 'number':
      return {
        format: settings.numberFormat,
        ...(settings.decimals.trim() === '' ? {} : { decimals: Number(settings.decimals) }),
      };
    case 'select':
    case 'multi_select':
      return { options: toOptions(settings.options) };
    case 'date':
      return settings.includeTime ? { includeTime: true } : {};
    case 'text':
    case 'checkbox':
    case 'email':
    case 'url':
    case 'phone':
      return {};
  }
}

/** Adds a column: its name, its type, and what that type needs (decision 60). */
export function PropertyForm(props: { tableId: string }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<PropertyType>('text');
  const [settings, setSettings] = useState(NO_SETTINGS);
  const [errors, setErrors] = useState<FieldErrors>({});
  const createProperty = useCreateProperty(props.tableId);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const result = validateForm(CreatePropertyBody, {
      name,
      type,
      config: configOf(type, settings),
    });
    const needsOptions = (type === 'select' || type === 'multi_select') && !settings.options.trim();
    const found: FieldErrors = result.ok ? {} : { ...result.errors };
    if (needsOptions) found['config'] = 'Enter at least one option.';
    setErrors(found);
    if (!result.ok || needsOptions) return;
    createProperty.mutate(result.data, {
      onSuccess: () => {
        setName('');
        setSettings((current) => ({ ...current, options: '', decimals: '' }));
      },
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      {createProperty.isError && <ErrorMessage error={createProperty.error} />}
      {createProperty.isSuccess && (
        <StatusMessage>Column {createProperty.data.property.name} added.</StatusMessage>
      )}
      <div className="tables-form-grid">
        <TextField
          label="Column name"
          value={name}
          error={errors['name']}
          autoComplete="off"
          onChange={(event) => setName(event.target.value)}
        />
        <SelectField
          label="Type"
          options={TYPE_OPTIONS}
          value={type}
          error={errors['type']}
          onChange={(event) => setType(event.target.value as PropertyType)}
        />
      </div>
      <TypeSettingsFields
        type={type}
        settings={settings}
        error={errors['config']}
        onChange={(change) => setSettings((current) => ({ ...current, ...change }))}
      />
      <Button type="submit" variant="primary" busy={createProperty.isPending}>
        Add column
      </Button>
    </form>
  );
}

function TypeSettingsFields({
  type,
  settings,
  error,
  onChange,
}: {
  type: PropertyType;
  settings: TypeSettings;
  error: string | undefined;
  onChange: (change: Partial<TypeSettings>) => void;
}) {
  if (type === 'number') {
    return (
      <div className="tables-form-grid">
        <SelectField
          label="Number format"
          options={NUMBER_FORMATS}
          value={settings.numberFormat}
          onChange={(event) => onChange({ numberFormat: event.target.value })}
        />
        <TextField
          label="Decimal places"
          hint="0 to 10; leave empty to show them as entered."
          type="number"
          inputMode="numeric"
          min={0}
          max={10}
          value={settings.decimals}
          error={error}
          onChange={(event) => onChange({ decimals: event.target.value })}
        />
      </div>
    );
  }
  if (type === 'select' || type === 'multi_select') {
    return (
      <TextField
        label="Options"
        hint="Separate them with commas, for example: New, Contacted, Won."
        value={settings.options}
        error={error}
        autoComplete="off"
        onChange={(event) => onChange({ options: event.target.value })}
      />
    );
  }
  if (type === 'date') {
    return (
      <CheckboxField
        label="Include a time of day"
        checked={settings.includeTime}
        onChange={(includeTime) => onChange({ includeTime })}
      />
    );
  }
  return null;
}

/**
 * Options from "New, Contacted, Won": each keeps its name and gets an id made from it; an
 * option of `existing` keeps its id, so the cells that hold it keep it too.
 */
export function toOptions(
  text: string,
  existing: readonly { id: string; name: string }[] = [],
): { id: string; name: string }[] {
  const kept = new Map(existing.map((option) => [option.name, option.id]));
  const taken = new Set<string>(existing.map((option) => option.id));
  return text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const keptId = kept.get(name);
      if (keptId !== undefined) return { id: keptId, name };
      const base =
        name
          .toLowerCase()
          .normalize('NFKD')
          .replace(/[^a-z0-9]+/gu, '-')
          .replace(/^-+|-+$/gu, '')
          .slice(0, 56) || 'option';
      let id = base;
      for (let suffix = 2; taken.has(id); suffix += 1) id = `${base}-${suffix}`;
      taken.add(id);
      return { id, name };
    });
}
