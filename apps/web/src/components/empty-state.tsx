import type { ReactNode } from 'react';

/** What a page shows when there is nothing yet, and what to do about it. */
export function EmptyState(props: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="empty-state">
      <h2 className="empty-state__title">{props.title}</h2>
      {props.children}
      {props.action && <div className="empty-state__action">{props.action}</div>}
    </div>
  );
}
