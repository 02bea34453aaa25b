import { useId, type TextareaHTMLAttributes } from 'react';
import { useShownError } from './use-shown-error';

export interface TextAreaFieldProps extends Omit<
  TextareaHTMLAttributes<HTMLTextAreaElement>,
  'id'
> {
  label: string;
  hint?: string;
  error?: string;
}

/** A labelled multi-line text input with its hint and error tied to it, like `TextField`. */
export function TextAreaField({ label, hint, error, className, ...rest }: TextAreaFieldProps) {
  const id = useId();
  const { field, shownError } = useShownError<HTMLTextAreaElement>(error, rest.value);
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
      <textarea
        rows={4}
        {...rest}
        ref={field}
        id={id}
        className={['field__input', 'text-area', className].filter(Boolean).join(' ')}
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
