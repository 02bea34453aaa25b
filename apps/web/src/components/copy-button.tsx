import { useEffect, useState } from 'react';
import { Button } from './button';

/** How long "Copied" stays before the button reads "Copy" again, in ms. */
const CONFIRMATION_MS = 2000;

/** Copies `value` to the clipboard and says so; when the browser refuses, says how to copy by hand. */
export function CopyButton(props: { value: string; label?: string }) {
  const [outcome, setOutcome] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (outcome !== 'copied') return;
    const timer = setTimeout(() => setOutcome('idle'), CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [outcome]);

  const copy = () => {
    // The Clipboard API exists only on secure origins (https, localhost).
    if (!('clipboard' in navigator)) {
      setOutcome('failed');
      return;
    }
    navigator.clipboard.writeText(props.value).then(
      () => setOutcome('copied'),
      () => setOutcome('failed'),
    );
  };
  return (
    <span className="copy-button">
      <Button onClick={copy}>{props.label ?? 'Copy'}</Button>
      <span role="status" className="copy-button__status">
        {outcome === 'copied' && 'Copied'}
        {outcome === 'failed' && 'Copying is blocked here: select the text and copy it.'}
      </span>
    </span>
  );
}
