import { useEffect, useId, useRef, useState } from 'react';
import { Link, useMatch } from 'react-router';
import { appPaths } from '../../../lib/routing';
import { findWorkspace, useMe } from '../api/workspace-api';

/**
 * The header's workspace menu: a disclosure button listing the person's workspaces as links
 * (a link per workspace, not a select, so arrow keys never navigate by accident). Switching
 * keeps the page's section (members → members) but not a record id of the old workspace.
 */
export function WorkspaceSwitcher() {
  const me = useMe();
  const match = useMatch('/app/w/:workspaceId/*');
  const [open, setOpen] = useState(false);
  const listId = useId();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const closeOnOutsideClick = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    };
    const closeOnEscape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      buttonRef.current?.focus();
    };
    document.addEventListener('pointerdown', closeOnOutsideClick);
    document.addEventListener('keydown', closeOnEscape);
    return () => {
      document.removeEventListener('pointerdown', closeOnOutsideClick);
      document.removeEventListener('keydown', closeOnEscape);
    };
  }, [open]);

  if (!me.data) return null;
  const currentId = match?.params['workspaceId'];
  const current = currentId ? findWorkspace(me.data, currentId) : undefined;
  const section = (match?.params['*'] ?? '').split('/')[0] ?? '';

  return (
    <div className="workspace-switcher" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className="workspace-switcher__button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen(!open)}
      >
        <span className="visually-hidden">Workspace: </span>
        {current?.name ?? 'Choose a workspace'}
        <span aria-hidden="true" className="workspace-switcher__chevron">
          ▾
        </span>
      </button>
      <div id={listId} className="workspace-switcher__menu" hidden={!open}>
        <ul>
          {me.data.workspaces.map((workspace) => (
            <li key={workspace.id}>
              <Link
                to={appPaths.workspace(workspace.id, section)}
                aria-current={workspace.id === currentId ? 'true' : undefined}
                onClick={() => setOpen(false)}
              >
                {workspace.name}
              </Link>
            </li>
          ))}
        </ul>
        <Link
          className="workspace-switcher__new"
          to={appPaths.newWorkspace()}
          onClick={() => setOpen(false)}
        >
          New workspace
        </Link>
      </div>
    </div>
  );
}
