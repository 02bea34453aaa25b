import { useId } from 'react';

export interface SwitchProps {
  label: string;
  /** A sentence under the label that says what turning it on does. */
  description?: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}

/** An on/off setting: a native checkbox announced as a switch, so Space toggles it. */
export function Switch({ label, description, checked, onChange, disabled }: SwitchProps) {
  const id = useId();
  const descriptionId = description ? `${id}-description` : undefined;
  return (
    <div className="switch">
      <input
        id={id}
        type="checkbox"
        role="switch"
        className="switch__input"
        checked={checked}
        disabled={disabled}
        aria-describedby={descriptionId}
        onChange={(event) => onChange(event.target.checked)}
      />
      <div>
        <label className="switch__label" htmlFor={id}>
          {label}
        </label>
        {description && (
          <p className="switch__description" id={descriptionId}>
            {description}
          </p>
        )}
      </div>
    </div>
  );
}
