import { useId } from 'react';

/** A labelled native checkbox (Space toggles it), with an optional hint. */
export function CheckboxField(props: {
  label: string;
  hint?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  return (
    <div className="field tables-checkbox-field">
      <div className="tables-checkbox-field__row">
        <input
          id={id}
          type="checkbox"
          checked={props.checked}
          aria-describedby={hintId}
          onChange={(event) => props.onChange(event.target.checked)}
        />
        <label htmlFor={id}>{props.label}</label>
      </div>
      {props.hint && (
        <p className="field__hint" id={hintId}>
          {props.hint}
        </p>
      )}
    </div>
  );
}
