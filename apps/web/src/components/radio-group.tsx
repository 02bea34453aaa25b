import { useId } from 'react';
import type { SelectOption } from './select-field';

export interface RadioGroupProps {
  legend: string;
  description?: string;
  options: readonly SelectOption[];
  /** The chosen option; undefined when none is chosen yet. */
  value: string | undefined;
  onChange: (value: string) => void;
  disabled?: boolean;
}

/** A choice among a few options, as a fieldset of native radio buttons. */
export function RadioGroup({
  legend,
  description,
  options,
  value,
  onChange,
  disabled,
}: RadioGroupProps) {
  const name = useId();
  return (
    <fieldset className="radio-group" disabled={disabled}>
      <legend className="field__label">{legend}</legend>
      {description && <p className="field__hint">{description}</p>}
      {options.map((option) => (
        <label key={option.value} className="radio-group__option">
          <input
            type="radio"
            name={name}
            value={option.value}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
