import { useState } from 'react';
import { Button } from './button';

export interface ConfirmButtonProps {
  /** The first button's text ("Delete", "Remove"). */
  label: string;
  /** What the action does to what, said on the confirming button and to screen readers. */
  action: string;
  busy?: boolean;
  onConfirm(): void;
}

/**
 * A destructive action asked twice: the first press turns the button into the action named in
 * full beside "Keep", so nothing is lost to one stray click.
 */
export function ConfirmButton(props: ConfirmButtonProps) {
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <Button variant="danger" aria-label={props.action} onClick={() => setConfirming(true)}>
        {props.label}
      </Button>
    );
  }
  return (
    <div className="button-row" role="group" aria-label={`Confirm: ${props.action}`}>
      <Button variant="danger" busy={props.busy} onClick={props.onConfirm}>
        {props.action}
      </Button>
      <Button onClick={() => setConfirming(false)}>Keep</Button>
    </div>
  );
}
