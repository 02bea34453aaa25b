import { createContext, useContext, type RefObject } from 'react';
import { insertAt, jsonTokenFor, placeholderOf, type VariableGroup } from './template-variables';

/** The variables the text settings below it offer; a step's card provides its own. */
export const TemplateVariablesContext = createContext<readonly VariableGroup[]>([]);

export type TextControl = HTMLInputElement | HTMLTextAreaElement;

export interface VariablePickerProps {
  /** The text control the variable goes into, at its cursor (or in place of its selection). */
  target: RefObject<TextControl | null>;
  /** The control's label: the picker is "Insert a variable into <label>". */
  label: string;
  text: string;
  onText: (text: string) => void;
  /** JSON text: outside a string the placeholder is inserted as a JSON string. */
  json?: boolean;
}

/**
 * A select beside a text setting that inserts the chosen variable at the cursor, then gives the
 * focus back to the text with the cursor after what it inserted. Renders nothing while no
 * variable is known (no test event captured, no earlier step ran).
 */
export function VariablePicker(props: VariablePickerProps) {
  const groups = useContext(TemplateVariablesContext).filter((group) => group.variables.length > 0);
  if (groups.length === 0) return null;
  const insert = (expression: string) => {
    const control = props.target.current;
    const start = control?.selectionStart ?? props.text.length;
    const end = control?.selectionEnd ?? start;
    const token = props.json
      ? jsonTokenFor(props.text, start, expression)
      : placeholderOf(expression);
    const next = insertAt(props.text, start, end, token);
    props.onText(next.text);
    requestAnimationFrame(() => {
      control?.focus();
      control?.setSelectionRange(next.caret, next.caret);
    });
  };
  return (
    <select
      className="field__input field__input--select schema-form__variables"
      aria-label={`Insert a variable into ${props.label}`}
      value=""
      onChange={(event) => {
        if (event.target.value) insert(event.target.value);
      }}
    >
      <option value="">Insert a variable…</option>
      {groups.map((group) => (
        <optgroup key={group.label} label={group.label}>
          {group.variables.map((variable) => (
            <option key={variable.expression} value={variable.expression}>
              {variable.path} = {variable.sample}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  );
}
