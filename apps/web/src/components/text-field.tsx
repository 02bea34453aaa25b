import { useId, type InputHTMLAttributes } from 'react';
import { useShownError } from './use-shown-error';

export interface TextFieldProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> {
  label: string;
  /** A line under the label that helps filling the field. */
  hint?: string;
  /** The field's validation message; marks the input invalid and is read with it. */
  error?: string;
}

/** A labelled text input with its hint and error tied to it for screen readers. */
export function TextField({
  label,
  hint,
  error,
  type = 'text',
  className,
  ...rest
}: TextFieldProps) {
  const id = useId();
  const { field, shownError } = useShownError<HTMLInputElement>(error, rest.value);
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = shownError ? `${id}-error` : undefined;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
      <input
        {...rest}
        ref={field}
        id={id}
        type={type}
        className={['field__input', className].filter(Boolean).join(' ')}
        aria-invalid={shownError ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      {shownError && (
        <p className="field__error" id={errorId}>
          {shownError}
        </p>
      )}
    </div>
  );
}
