import type { ReactNode } from 'react';

/** The product's name, last in every document title. */
const PRODUCT_NAME = 'Workspace Assistant';

/** The page's one h1 (also its document title), a line about it, and its main actions. */
export function PageHeader(props: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <title>{`${props.title} · ${PRODUCT_NAME}`}</title>
      <div>
        <h1>{props.title}</h1>
        {props.description && <p className="page-header__description">{props.description}</p>}
      </div>
      {props.actions && <div className="page-header__actions">{props.actions}</div>}
    </header>
  );
}
