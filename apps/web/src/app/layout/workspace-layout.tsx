import { Link, NavLink, Outlet } from 'react-router';
import { EmptyState } from '../../components';
import { findWorkspace, useMe } from '../../features/workspace';
import { appPaths, useWorkspaceId, type NavEntry } from '../../lib/routing';

/** A workspace's pages: the features' navigation and the page, for members of it only. */
export function WorkspaceLayout(props: { navEntries: readonly NavEntry[] }) {
  const workspaceId = useWorkspaceId();
  const me = useMe();
  const workspace = findWorkspace(me.data, workspaceId);
  if (!workspace) {
    return (
      <main id="main" className="shell__main shell__main--narrow">
        <EmptyState
          title="Workspace not found"
          action={<Link to={appPaths.home()}>Open your workspaces</Link>}
        >
          <p>It does not exist, or you are not a member of it.</p>
        </EmptyState>
      </main>
    );
  }
  return (
    <div className="shell__body">
      <nav className="shell__nav" aria-label={`${workspace.name} workspace`}>
        <ul>
          {props.navEntries.map((entry) => (
            <li key={entry.path}>
              <NavLink to={appPaths.workspace(workspaceId, entry.path)} end={entry.path === ''}>
                {entry.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="shell__main">
        <Outlet />
      </main>
    </div>
  );
}
