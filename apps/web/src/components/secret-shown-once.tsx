import type { ReactNode } from 'react';
import { Button } from './button';
import { CopyButton } from './copy-button';
import { Panel } from './panel';
import { TextField } from './text-field';

/**
 * A credential the platform keeps no copy of (an API key, an extension token): shown once in
 * the page's state, to copy, then dismissed for good.
 */
export function SecretShownOnce(props: {
  title: string;
  instruction: ReactNode;
  label: string;
  value: string;
  copyLabel: string;
  dismissLabel: string;
  onDismiss: () => void;
}) {
  return (
    <Panel title={props.title}>
      <p>{props.instruction}</p>
      <TextField
        label={props.label}
        className="secret-value"
        readOnly
        value={props.value}
        onFocus={(event) => event.target.select()}
      />
      <p className="button-row">
        <CopyButton value={props.value} label={props.copyLabel} />
        <Button onClick={props.onDismiss}>{props.dismissLabel}</Button>
      </p>
    </Panel>
  );
}
