import { isRouteErrorResponse, useRouteError } from 'react-router';
import { Button, ErrorMessage } from '../components';

/**
 * What a page that failed to load or render shows instead of a blank screen. A chunk that
 * cannot be fetched (the app was redeployed while the tab was open) is fixed by a reload.
 */
export function RouteErrorPage() {
  const error = useRouteError();
  return (
    <main id="main" className="shell__main shell__main--narrow">
      <h1>This page could not be shown</h1>
      {isRouteErrorResponse(error) ? (
        <p>
          {error.status} {error.statusText}
        </p>
      ) : (
        <ErrorMessage error={error} />
      )}
      <Button variant="primary" onClick={() => window.location.reload()}>
        Reload the page
      </Button>
    </main>
  );
}
