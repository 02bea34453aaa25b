import { Link, Outlet } from 'react-router';
import { appPaths } from '../../lib/routing';
import './shell.css';

/** Pages without a session: the product's name and the page. */
export function PublicLayout() {
  return (
    <div className="shell">
      <header className="shell__header">
        <Link className="shell__brand" to={appPaths.home()}>
          Workspace Assistant
        </Link>
      </header>
      <main id="main" className="shell__main shell__main--narrow">
        <Outlet />
      </main>
    </div>
  );
}
