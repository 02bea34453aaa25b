import { useId, type ReactNode } from 'react';

/** A titled section of a page, named by its heading for screen readers' region lists. */
export function Panel(props: { title: string; description?: ReactNode; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{props.title}</h2>
      {props.description && <p className="panel__description">{props.description}</p>}
      {props.children}
    </section>
  );
}
