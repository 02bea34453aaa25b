import type { ButtonHTMLAttributes } from 'react';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'danger';
  /** While true the button is disabled and announced as busy (a request is on its way). */
  busy?: boolean;
}

/** A button; `type` defaults to "button" so that only an explicit submit submits a form. */
export function Button({
  variant = 'secondary',
  busy = false,
  type = 'button',
  className,
  disabled,
  ...rest
}: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={['button', `button--${variant}`, className].filter(Boolean).join(' ')}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    />
  );
}
