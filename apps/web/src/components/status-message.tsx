import type { ReactNode } from 'react';

/** A confirmation that something worked, announced politely to screen readers. */
export function StatusMessage(props: { children: ReactNode }) {
  return (
    <div className="notice notice--success" role="status">
      {props.children}
    </div>
  );
}
