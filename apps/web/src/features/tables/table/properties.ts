import type { PropertyType, TableProperty } from '@wap/contracts';

/** How each property type is named on screen. */
export const PROPERTY_TYPE_LABELS: Record<PropertyType, string> = {
  text: 'Text',
  number: 'Number',
  checkbox: 'Checkbox',
  select: 'Select',
  multi_select: 'Multi-select',
  date: 'Date',
  email: 'Email',
  url: 'URL',
  phone: 'Phone',
};

export interface PropertyOption {
  id: string;
  name: string;
}

/** The options of a select or multi-select property (decision 60's `config.options`). */
export function optionsOf(property: TableProperty): PropertyOption[] {
  const options = property.config['options'];
  if (!Array.isArray(options)) return [];
  return options.flatMap((option: unknown) => {
    if (typeof option !== 'object' || option === null) return [];
    const { id, name } = option as Record<string, unknown>;
    return typeof id === 'string' ? [{ id, name: typeof name === 'string' ? name : id }] : [];
  });
}

/** A cell as a person reads it; '' for an empty one. */
export function cellText(property: TableProperty, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  switch (property.type) {
    case 'checkbox':
      return value === true ? 'Yes' : 'No';
    case 'select':
      return optionsOf(property).find((option) => option.id === value)?.name ?? String(value);
    case 'multi_select': {
      const names = new Map(optionsOf(property).map((option) => [option.id, option.name]));
      return Array.isArray(value) ? value.map((id) => names.get(String(id)) ?? id).join(', ') : '';
    }
    case 'number':
      return typeof value === 'number' ? formatNumber(property, value) : String(value);
    case 'date':
      return typeof value === 'string'
        ? formatDate(value, property.config['includeTime'] === true)
        : '';
    case 'text':
    case 'email':
    case 'url':
    case 'phone':
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

function formatNumber(property: TableProperty, value: number): string {
  const decimals =
    typeof property.config['decimals'] === 'number' ? property.config['decimals'] : undefined;
  const digits = { minimumFractionDigits: decimals, maximumFractionDigits: decimals ?? 10 };
  switch (property.config['format']) {
    case 'percent':
      return new Intl.NumberFormat(undefined, { style: 'percent', ...digits }).format(value / 100);
    case 'currency':
      // The config names no currency: the amount is shown with its digits only.
      return new Intl.NumberFormat(undefined, {
        minimumFractionDigits: decimals ?? 2,
        maximumFractionDigits: decimals ?? 2,
      }).format(value);
    default:
      return new Intl.NumberFormat(undefined, digits).format(value);
  }
}

function formatDate(value: string, includeTime: boolean): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  // A date without a time is midnight UTC: shown in UTC so it is not a day early in America.
  return includeTime
    ? date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
    : date.toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
}
