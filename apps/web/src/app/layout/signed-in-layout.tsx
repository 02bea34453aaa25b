import { Link, Outlet } from 'react-router';
import { ErrorMessage, LoadingState } from '../../components';
import { AccountMenu, useMe, WorkspaceSwitcher } from '../../features/workspace';
import { appPaths } from '../../lib/routing';
import './shell.css';

/**
 * Pages of a signed-in person: the header with the workspace switcher and sign-out. `GET /me`
 * is asked first; its 401 sends the person to sign in (the API client does that).
 */
export function SignedInLayout() {
  const me = useMe();
  return (
    <div className="shell">
      <a className="shell__skip-link" href="#main">
        Skip to content
      </a>
      <header className="shell__header">
        <Link className="shell__brand" to={appPaths.home()}>
          Workspace Assistant
        </Link>
        <WorkspaceSwitcher />
        <AccountMenu />
      </header>
      {me.isPending && (
        <main id="main" className="shell__main">
          <LoadingState />
        </main>
      )}
      {me.isError && (
        <main id="main" className="shell__main">
          <ErrorMessage error={me.error} />
        </main>
      )}
      {me.isSuccess && <Outlet />}
    </div>
  );
}
