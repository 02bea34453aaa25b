import { AppError } from '@wap/contracts';
import type { PropertyRecord } from './repository';

interface CellIssue {
  path: string;
  message: string;
}

function optionNames(property: PropertyRecord): Set<string> {
  const options = Array.isArray(property.config['options']) ? property.config['options'] : [];
  return new Set(
    options.flatMap((option: unknown) =>
      typeof option === 'object' && option !== null && 'id' in option ? [String(option.id)] : [],
    ),
  );
}

/** Why a value cannot be stored in a property of this type, or null when it can (decision 60). */
function problemWith(property: PropertyRecord, value: unknown): string | null {
  if (value === null) return null;
  switch (property.type) {
    case 'text':
    case 'phone':
      return typeof value === 'string' ? null : 'must be a string';
    case 'email':
      return typeof value === 'string' && /^[^\s@]+@[^\s@]+$/u.test(value)
        ? null
        : 'must be an email address';
    case 'url':
      return typeof value === 'string' && URL.canParse(value) ? null : 'must be an absolute URL';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && !Number.isNaN(Date.parse(value))
        ? null
        : 'must be an ISO 8601 date';
    case 'select':
      return typeof value === 'string' && optionNames(property).has(value)
        ? null
        : 'must be the id of one of the options';
    case 'multi_select': {
      const options = optionNames(property);
      return Array.isArray(value) && value.every((item) => options.has(String(item)))
        ? null
        : 'must be a list of option ids';
    }
  }
}

/** Refuses, with every issue listed, cells of unknown properties and values of the wrong type. */
export function checkCells(properties: PropertyRecord[], cells: Record<string, unknown>): void {
  const byId = new Map(properties.map((property) => [property.id, property]));
  const issues: CellIssue[] = [];
  for (const [propertyId, value] of Object.entries(cells)) {
    const property = byId.get(propertyId);
    const problem = property ? problemWith(property, value) : 'is not a property of this table';
    if (problem)
      issues.push({ path: `body.cells.${propertyId}`, message: `${propertyId} ${problem}` });
  }
  if (issues.length > 0) {
    throw new AppError('VALIDATION_ERROR', 'Invalid cells', { details: issues });
  }
}
