import { Outlet } from 'react-router';

/** Pages of the person outside any workspace (their first workspace, a new one). */
export function AccountLayout() {
  return (
    <main id="main" className="shell__main shell__main--narrow">
      <Outlet />
    </main>
  );
}
