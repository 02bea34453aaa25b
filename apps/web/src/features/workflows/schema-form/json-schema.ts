/**
 * The part of JSON Schema (draft 2020-12, as zod's `toJSONSchema` writes it) that the settings
 * form understands. `GET /workflows/step-types` publishes one such schema per step type; the
 * form is generated from it, so a new step type or setting needs no new screen.
 */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  $ref?: string;
}

/** A scalar the form edits with one control. */
export type ScalarField =
  | {
      kind: 'text';
      /** Long text (more than `LONG_TEXT_CHARS` characters allowed) gets a text area. */
      multiline: boolean;
      format?: string;
      minLength?: number;
      maxLength?: number;
    }
  | { kind: 'select'; options: string[] }
  | { kind: 'number'; integer: boolean; min?: number; max?: number };

/** How one part of a schema is edited. */
export type FieldModel =
  | ScalarField
  | { kind: 'boolean' }
  /** An array of strings or numbers: one control per item, with add and remove. */
  | { kind: 'list'; item: ScalarField; minItems?: number; maxItems?: number }
  /** An array of strings of a fixed set: one checkbox per option. */
  | { kind: 'choices'; options: string[]; minItems?: number; maxItems?: number }
  | { kind: 'object'; fields: PropertyField[] }
  /** Whatever the form cannot render: edited as JSON text. */
  | { kind: 'json' };

export interface PropertyField {
  name: string;
  label: string;
  hint?: string;
  required: boolean;
  schema: JsonSchema;
  model: FieldModel;
}

/** Text fields that allow more characters than this get a text area (a prompt, a message). */
export const LONG_TEXT_CHARS = 4096;

/** The schema's single type, or undefined when it has none or several. */
function typeOf(schema: JsonSchema): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (schema.type === undefined && Array.isArray(schema.enum)) {
    return schema.enum.every((value) => typeof value === 'string') ? 'string' : undefined;
  }
  return undefined;
}

function isCombined(schema: JsonSchema): boolean {
  return Boolean(schema.anyOf ?? schema.oneOf ?? schema.allOf ?? schema.$ref);
}

function scalarModel(schema: JsonSchema): ScalarField | undefined {
  if (isCombined(schema)) return undefined;
  const type = typeOf(schema);
  if (type === 'string') {
    if (Array.isArray(schema.enum)) {
      const options = schema.enum.filter((value): value is string => typeof value === 'string');
      return options.length === schema.enum.length && options.length > 0
        ? { kind: 'select', options }
        : undefined;
    }
    return {
      kind: 'text',
      multiline: schema.maxLength !== undefined && schema.maxLength > LONG_TEXT_CHARS,
      format: schema.format,
      minLength: schema.minLength,
      maxLength: schema.maxLength,
    };
  }
  if (type === 'number' || type === 'integer') {
    return {
      kind: 'number',
      integer: type === 'integer',
      min: schema.minimum ?? schema.exclusiveMinimum,
      max: schema.maximum ?? schema.exclusiveMaximum,
    };
  }
  return undefined;
}

/** How the form edits `schema`; anything it does not know becomes a JSON text area. */
export function fieldModelOf(schema: JsonSchema): FieldModel {
  if (isCombined(schema)) return { kind: 'json' };
  const type = typeOf(schema);
  if (type === 'boolean') return { kind: 'boolean' };
  if (type === 'object') {
    // A record (`additionalProperties` only) has keys the schema does not name: JSON.
    if (!schema.properties || Object.keys(schema.properties).length === 0) return { kind: 'json' };
    return { kind: 'object', fields: propertyFieldsOf(schema) };
  }
  if (type === 'array') {
    const items = schema.items;
    if (!items) return { kind: 'json' };
    const item = scalarModel(items);
    if (!item) return { kind: 'json' };
    const bounds = { minItems: schema.minItems, maxItems: schema.maxItems };
    if (item.kind === 'select') return { kind: 'choices', options: item.options, ...bounds };
    return { kind: 'list', item, ...bounds };
  }
  return scalarModel(schema) ?? { kind: 'json' };
}

/** The fields of an object schema, in the schema's order. */
export function propertyFieldsOf(schema: JsonSchema): PropertyField[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    label: property.title ?? humanize(name),
    hint: property.description,
    required: required.has(name),
    schema: property,
    model: fieldModelOf(property),
  }));
}

/** Words written in capitals wherever they appear in a property name. */
const ACRONYMS: Record<string, string> = {
  id: 'ID',
  ids: 'IDs',
  url: 'URL',
  urls: 'URLs',
  http: 'HTTP',
  https: 'HTTPS',
  mcp: 'MCP',
  json: 'JSON',
  api: 'API',
  uuid: 'UUID',
};

/** `reviewerIds` → "Reviewer IDs", `max_runs` → "Max runs": a label from a property name. */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());
  return words
    .map((word, index) => {
      const acronym = ACRONYMS[word];
      if (acronym) return acronym;
      return index === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word;
    })
    .join(' ');
}

/** A line under a field that says what the schema allows, when the schema says no more. */
export function constraintHint(field: PropertyField): string | undefined {
  const { model, schema } = field;
  const parts: string[] = [];
  if (model.kind === 'number') {
    if (model.min !== undefined && model.max !== undefined) {
      parts.push(`${formatNumber(model.min)} to ${formatNumber(model.max)}`);
    } else if (model.min !== undefined) {
      parts.push(`at least ${formatNumber(model.min)}`);
    } else if (model.max !== undefined) {
      parts.push(`at most ${formatNumber(model.max)}`);
    }
    if (model.integer) parts.push('a whole number');
  }
  if (model.kind === 'text' && model.format === 'uuid') parts.push('an ID like 0b6f…-…');
  if ((model.kind === 'list' || model.kind === 'choices') && model.minItems) {
    parts.push(`at least ${model.minItems}`);
  }
  if (model.kind === 'list' && model.item.kind === 'text' && model.item.format === 'uuid') {
    parts.push('each an ID like 0b6f…-…');
  }
  if (model.kind === 'json') parts.push('JSON');
  const constraint = parts.length > 0 ? capitalize(parts.join(', ')) + '.' : undefined;
  return [schema.description, constraint].filter(Boolean).join(' ') || undefined;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function formatNumber(value: number): string {
  return value.toLocaleString('en-US');
}

/**
 * The value a new form starts with: the schema's defaults, the first option of a required
 * choice, an empty entry for each item a list needs, and nothing where the person must decide.
 */
export function initialValueOf(schema: JsonSchema, required = true): unknown {
  if (schema.default !== undefined) return structuredClone(schema.default);
  const model = fieldModelOf(schema);
  switch (model.kind) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const field of model.fields) {
        const initial = initialValueOf(field.schema, field.required);
        if (initial !== undefined) value[field.name] = initial;
      }
      return value;
    }
    case 'select':
      return required ? model.options[0] : undefined;
    case 'boolean':
      return required ? false : undefined;
    case 'list':
      return required ? Array.from({ length: Math.max(model.minItems ?? 0, 1) }, () => '') : [];
    case 'choices':
      return required ? [] : undefined;
    case 'json':
      return required && typeOf(schema) === 'object' ? {} : undefined;
    case 'text':
    case 'number':
      return undefined;
  }
}

/**
 * The value as it is sent: empty entries of lists are left out, and so are optional objects
 * and lists left empty, as if the person had not touched them.
 */
export function cleanValue(schema: JsonSchema, value: unknown): unknown {
  const model = fieldModelOf(schema);
  if (model.kind === 'list' && Array.isArray(value)) {
    return value.filter((item) => item !== '' && item !== undefined && item !== null);
  }
  if (model.kind === 'object' && isRecord(value)) {
    const cleaned: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) {
      const field = model.fields.find((candidate) => candidate.name === name);
      const next = field ? cleanValue(field.schema, item) : item;
      if (next === undefined) continue;
      if (field && !field.required && isEmptyContainer(next)) continue;
      cleaned[name] = next;
    }
    return cleaned;
  }
  return value;
}

function isEmptyContainer(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dotted path (`reviewerIds.0`) of a settings object. */
export function valueAt(value: unknown, path: string): unknown {
  if (path === '') return value;
  return path.split('.').reduce<unknown>((current, segment) => {
    if (Array.isArray(current)) return current[Number(segment)];
    if (isRecord(current)) return current[segment];
    return undefined;
  }, value);
}
