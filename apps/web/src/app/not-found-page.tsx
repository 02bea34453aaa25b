import { Link } from 'react-router';
import { EmptyState, PageHeader } from '../components';
import { appPaths } from '../lib/routing';

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" />
      <EmptyState
        title="There is no page at this address"
        action={<Link to={appPaths.home()}>Go to your workspaces</Link>}
      />
    </>
  );
}
