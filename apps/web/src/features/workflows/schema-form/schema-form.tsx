import { useId, useRef, useState, type ReactNode } from 'react';
import { Switch } from '../../../components';
import {
  constraintHint,
  isRecord,
  propertyFieldsOf,
  type JsonSchema,
  type PropertyField,
  type ScalarField,
} from './json-schema';
import { VariablePicker } from './variable-picker';

/** Validation messages by dotted path (`seconds`, `reviewerIds.0`, `headers`). */
export type PathErrors = Partial<Record<string, string>>;

/** What a replacement control of one top-level property gets. */
export interface FieldOverrideProps {
  field: PropertyField;
  value: unknown;
  onChange: (value: unknown) => void;
  error: string | undefined;
  /** The control the form would have generated: the override may show it instead of its own. */
  generated: ReactNode;
}

export interface SchemaFormProps {
  /** An object schema, as `GET /workflows/step-types` publishes it in `settings_schema`. */
  schema: JsonSchema;
  value: Record<string, unknown>;
  onChange: (value: Record<string, unknown>) => void;
  errors?: PathErrors;
  /** Replaces the generated control of a top-level property by its name. */
  overrides?: Partial<Record<string, (props: FieldOverrideProps) => ReactNode>>;
  /** Told when a JSON text area holds text that is not JSON (the value then keeps its last JSON). */
  onJsonValidityChange?: (path: string, valid: boolean) => void;
}

/**
 * A form generated from a JSON Schema: text, select (enum), number, switch (boolean), lists of
 * strings or numbers, checkbox groups (arrays of an enum) and nested objects as fieldsets. Any
 * part it cannot render (records, unions, `{}`) is edited as JSON text. Every control is
 * labelled; required fields are marked and announced.
 */
export function SchemaForm(props: SchemaFormProps) {
  const fields = propertyFieldsOf(props.schema);
  const hasRequired = fields.some((field) => field.required);
  return (
    <div className="schema-form">
      {hasRequired && (
        <p className="schema-form__legend">
          <span aria-hidden="true">*</span> marks a required setting.
        </p>
      )}
      {fields.length === 0 && <p className="schema-form__empty">This step has no settings.</p>}
      {fields.map((field) => {
        const value = props.value[field.name];
        const onChange = (next: unknown) =>
          props.onChange(withProperty(props.value, field.name, next));
        const generated = (
          <SchemaField
            field={field}
            path={field.name}
            value={value}
            onChange={onChange}
            errors={props.errors ?? {}}
            onJsonValidityChange={props.onJsonValidityChange}
          />
        );
        const override = props.overrides?.[field.name];
        return (
          <div key={field.name}>
            {override
              ? override({ field, value, onChange, error: props.errors?.[field.name], generated })
              : generated}
          </div>
        );
      })}
    </div>
  );
}

function withProperty(
  object: Record<string, unknown>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const next = { ...object };
  if (value === undefined) delete next[name];
  else next[name] = value;
  return next;
}

interface FieldProps {
  field: PropertyField;
  path: string;
  value: unknown;
  onChange: (value: unknown) => void;
  errors: PathErrors;
  onJsonValidityChange?: (path: string, valid: boolean) => void;
}

function SchemaField(props: FieldProps) {
  const { field } = props;
  switch (field.model.kind) {
    case 'text':
    case 'select':
    case 'number':
      return <ScalarInput {...props} model={field.model} />;
    case 'boolean':
      return (
        <Switch
          label={field.label}
          description={constraintHint(field)}
          checked={props.value === true}
          onChange={(checked) => props.onChange(checked)}
        />
      );
    case 'list':
      return <ListInput {...props} item={field.model.item} />;
    case 'choices':
      return <ChoicesInput {...props} options={field.model.options} />;
    case 'object':
      return <ObjectInput {...props} fields={field.model.fields} />;
    case 'json':
      return <JsonInput {...props} />;
  }
}

/** The label's text with the required mark, which screen readers skip (the input says "required"). */
function LabelText(props: { field: PropertyField }) {
  return (
    <>
      {props.field.label}
      {props.field.required && (
        <span className="schema-form__required" aria-hidden="true">
          {' '}
          *
        </span>
      )}
    </>
  );
}

function FieldMessages(props: {
  hintId?: string;
  hint?: string;
  errorId?: string;
  error?: string;
}) {
  return (
    <>
      {props.hint && (
        <p className="field__hint" id={props.hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p className="field__error" id={props.errorId}>
          {props.error}
        </p>
      )}
    </>
  );
}

function describedBy(...ids: (string | undefined | false)[]): string | undefined {
  return ids.filter(Boolean).join(' ') || undefined;
}

function ScalarInput(props: FieldProps & { model: ScalarField }) {
  const id = useId();
  const { field, path } = props;
  const hint = constraintHint(field);
  const error = props.errors[path];
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        <LabelText field={field} />
      </label>
      <ScalarControl
        id={id}
        model={props.model}
        label={field.label}
        value={props.value}
        required={field.required}
        invalid={Boolean(error)}
        describedBy={describedBy(hintId, errorId)}
        onChange={props.onChange}
      />
      <FieldMessages hintId={hintId} hint={hint} errorId={errorId} error={error} />
    </div>
  );
}

interface ScalarControlProps {
  id: string;
  model: ScalarField;
  value: unknown;
  required: boolean;
  invalid: boolean;
  describedBy: string | undefined;
  onChange: (value: unknown) => void;
  /** The setting's label: text settings offer "Insert a variable into <label>". */
  label: string;
  /** For list items, whose label is the list's legend and the item's number. */
  ariaLabel?: string;
}

function ScalarControl(props: ScalarControlProps) {
  const common = {
    id: props.id,
    required: props.required,
    'aria-invalid': props.invalid || undefined,
    'aria-describedby': props.describedBy,
    'aria-label': props.ariaLabel,
  };
  const { model } = props;
  if (model.kind === 'select') {
    const value = typeof props.value === 'string' ? props.value : '';
    const needsBlank = !props.required || !model.options.includes(value);
    return (
      <select
        {...common}
        className="field__input field__input--select"
        value={value}
        onChange={(event) => props.onChange(event.target.value || undefined)}
      >
        {needsBlank && <option value="">{props.required ? 'Choose…' : 'None'}</option>}
        {model.options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    );
  }
  if (model.kind === 'number') {
    return <NumberControl {...props} common={common} model={model} />;
  }
  return <TextControlWithVariables {...props} common={common} model={model} />;
}

/** A text setting, with the variable picker beside it. */
function TextControlWithVariables(
  props: ScalarControlProps & {
    model: Extract<ScalarField, { kind: 'text' }>;
    common: Record<string, unknown>;
  },
) {
  const inputRef = useRef<HTMLInputElement>(null);
  const areaRef = useRef<HTMLTextAreaElement>(null);
  const { model } = props;
  const text = typeof props.value === 'string' ? props.value : '';
  const onChange = (next: string) => props.onChange(next === '' ? undefined : next);
  const control = model.multiline ? (
    <textarea
      {...props.common}
      ref={areaRef}
      className="field__input field__input--multiline"
      rows={4}
      maxLength={model.maxLength}
      value={text}
      onChange={(event) => onChange(event.target.value)}
    />
  ) : (
    <input
      {...props.common}
      ref={inputRef}
      type="text"
      className={`field__input${model.format === 'uuid' ? ' schema-form__mono' : ''}`}
      maxLength={model.maxLength}
      autoComplete="off"
      spellCheck={model.format === 'uuid' ? false : undefined}
      value={text}
      onChange={(event) => onChange(event.target.value)}
    />
  );
  return (
    <div className="schema-form__templated">
      {control}
      <VariablePicker
        target={model.multiline ? areaRef : inputRef}
        label={props.ariaLabel ?? props.label}
        text={text}
        onText={onChange}
      />
    </div>
  );
}

/**
 * A number keeps the text as typed ("1." on its way to "1.5"), and gives the form the number
 * it reads, or nothing while the field is empty.
 */
function NumberControl(
  props: ScalarControlProps & {
    model: Extract<ScalarField, { kind: 'number' }>;
    common: Record<string, unknown>;
  },
) {
  const external = typeof props.value === 'number' ? props.value : undefined;
  const [text, setText] = useState(external === undefined ? '' : String(external));
  const [seen, setSeen] = useState(external);
  if (external !== seen) {
    // The value changed from outside (a step moved, the form was reset): show it.
    setSeen(external);
    if (parseNumber(text) !== external) setText(external === undefined ? '' : String(external));
  }
  return (
    <input
      {...props.common}
      type="number"
      className="field__input field__input--number"
      inputMode={props.model.integer ? 'numeric' : 'decimal'}
      min={props.model.min}
      max={props.model.max}
      step={props.model.integer ? 1 : 'any'}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        const parsed = parseNumber(event.target.value);
        setSeen(parsed);
        props.onChange(parsed);
      }}
    />
  );
}

function parseNumber(text: string): number | undefined {
  if (text.trim() === '') return undefined;
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

function ListInput(props: FieldProps & { item: ScalarField }) {
  const id = useId();
  const { field, path } = props;
  const items = Array.isArray(props.value) ? props.value : [];
  const hint = constraintHint(field);
  const error = props.errors[path];
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const max = field.model.kind === 'list' ? field.model.maxItems : undefined;
  const emptyItem = props.item.kind === 'number' ? undefined : '';
  const replace = (index: number, value: unknown) =>
    props.onChange(items.map((item, at) => (at === index ? (value ?? emptyItem) : item)));
  return (
    <fieldset className="schema-form__group" aria-describedby={describedBy(hintId, errorId)}>
      <legend className="field__label">
        <LabelText field={field} />
      </legend>
      <FieldMessages hintId={hintId} hint={hint} errorId={errorId} error={error} />
      {items.length > 0 && (
        <ol className="schema-form__list">
          {items.map((item, index) => {
            const itemLabel = `${field.label}, item ${index + 1}`;
            const itemError = props.errors[`${path}.${index}`];
            return (
              // Items have no identity of their own; their position is what the person edits.
              <li key={index} className="schema-form__list-item">
                <ListItemControl
                  model={props.item}
                  label={itemLabel}
                  value={item}
                  error={itemError}
                  onChange={(value) => replace(index, value)}
                />
                <button
                  type="button"
                  className="button button--secondary"
                  aria-label={`Remove ${itemLabel}`}
                  onClick={() => props.onChange(items.filter((_, at) => at !== index))}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ol>
      )}
      <button
        type="button"
        className="button button--secondary"
        aria-label={`Add an item to ${field.label}`}
        disabled={max !== undefined && items.length >= max}
        onClick={() => props.onChange([...items, emptyItem])}
      >
        Add an item
      </button>
    </fieldset>
  );
}

function ListItemControl(props: {
  model: ScalarField;
  label: string;
  value: unknown;
  error: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const id = useId();
  const errorId = props.error ? `${id}-error` : undefined;
  return (
    <div className="schema-form__list-control">
      <ScalarControl
        id={id}
        model={props.model}
        value={props.value}
        required={false}
        invalid={Boolean(props.error)}
        describedBy={errorId}
        label={props.label}
        ariaLabel={props.label}
        onChange={props.onChange}
      />
      {props.error && (
        <p className="field__error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

function ChoicesInput(props: FieldProps & { options: string[] }) {
  const id = useId();
  const { field, path } = props;
  const chosen = Array.isArray(props.value) ? props.value : [];
  const hint = constraintHint(field);
  const error = props.errors[path];
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <fieldset className="schema-form__group" aria-describedby={describedBy(hintId, errorId)}>
      <legend className="field__label">
        <LabelText field={field} />
      </legend>
      <FieldMessages hintId={hintId} hint={hint} errorId={errorId} error={error} />
      {props.options.map((option) => (
        <label key={option} className="schema-form__choice">
          <input
            type="checkbox"
            checked={chosen.includes(option)}
            onChange={(event) =>
              props.onChange(
                event.target.checked
                  ? props.options.filter(
                      (candidate) => candidate === option || chosen.includes(candidate),
                    )
                  : chosen.filter((candidate) => candidate !== option),
              )
            }
          />
          {option}
        </label>
      ))}
    </fieldset>
  );
}

function ObjectInput(props: FieldProps & { fields: PropertyField[] }) {
  const id = useId();
  const { field, path } = props;
  const object = isRecord(props.value) ? props.value : {};
  const error = props.errors[path];
  const hintId = field.hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  return (
    <fieldset className="schema-form__group" aria-describedby={describedBy(hintId, errorId)}>
      <legend className="field__label">
        <LabelText field={field} />
      </legend>
      <FieldMessages hintId={hintId} hint={field.hint} errorId={errorId} error={error} />
      {props.fields.map((child) => (
        <SchemaField
          key={child.name}
          field={child}
          path={`${path}.${child.name}`}
          value={object[child.name]}
          onChange={(next) => props.onChange(withProperty(object, child.name, next))}
          errors={props.errors}
          onJsonValidityChange={props.onJsonValidityChange}
        />
      ))}
    </fieldset>
  );
}

function toJsonText(value: unknown): string {
  return value === undefined ? '' : JSON.stringify(value, null, 2);
}

/** JSON text: the value changes when the text is JSON; until then the text says why it is not. */
function JsonInput(props: FieldProps) {
  const id = useId();
  const areaRef = useRef<HTMLTextAreaElement>(null);
  const { field, path } = props;
  const [text, setText] = useState(() => toJsonText(props.value));
  const [parseError, setParseError] = useState<string | null>(null);
  const [seen, setSeen] = useState(props.value);
  if (props.value !== seen) {
    // Changed from outside: show the new value unless it is what the text already says.
    setSeen(props.value);
    if (parseError === null && !sameJson(text, props.value)) setText(toJsonText(props.value));
  }
  const hint = constraintHint(field);
  const error = parseError ?? props.errors[path];
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const accept = (next: string) => {
    setText(next);
    if (next.trim() === '') {
      setParseError(null);
      props.onJsonValidityChange?.(path, true);
      setSeen(undefined);
      props.onChange(undefined);
      return;
    }
    try {
      const parsed: unknown = JSON.parse(next);
      setParseError(null);
      props.onJsonValidityChange?.(path, true);
      setSeen(parsed);
      props.onChange(parsed);
    } catch {
      setParseError('This is not valid JSON yet.');
      props.onJsonValidityChange?.(path, false);
    }
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        <LabelText field={field} />
      </label>
      <div className="schema-form__templated">
        <textarea
          ref={areaRef}
          id={id}
          className="field__input field__input--multiline schema-form__mono"
          rows={Math.min(Math.max(text.split('\n').length, 3), 12)}
          spellCheck={false}
          required={field.required}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(hintId, errorId)}
          value={text}
          onChange={(event) => accept(event.target.value)}
        />
        <VariablePicker target={areaRef} label={field.label} text={text} onText={accept} json />
      </div>
      <FieldMessages hintId={hintId} hint={hint} errorId={errorId} error={error} />
    </div>
  );
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
