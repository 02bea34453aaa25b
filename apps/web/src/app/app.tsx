import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { RouterProvider } from 'react-router';
import { ApiClientProvider, ApiError, createApiClient } from '../lib/api';
import { appPaths, rememberReturnPath } from '../lib/routing';
import { FEATURES } from './features';
import { createAppRouter } from './router';

/** How many times a query is retried after a failure that may pass (no answer, 5xx). */
const MAX_QUERY_RETRIES = 2;

/**
 * The app's long-lived objects: the query cache, the one API client and the router. A 401
 * that ends the session (UNAUTHORIZED, SESSION_EXPIRED) sends the person to sign in from here.
 */
function createAppRuntime() {
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // A 4xx will not change by asking again.
        retry: (failureCount, error) =>
          !(error instanceof ApiError && error.status >= 400 && error.status < 500) &&
          failureCount < MAX_QUERY_RETRIES,
      },
    },
  });
  let signingIn = false;
  const apiClient = createApiClient({
    onSessionEnded: (error) => {
      if (signingIn || router.state.location.pathname === appPaths.signIn()) return;
      signingIn = true;
      rememberReturnPath(router.state.location);
      // The cache is dropped once the signed-in pages are gone, so none of them refetches.
      void router
        .navigate(appPaths.signIn({ expired: error.code === 'SESSION_EXPIRED' }), {
          replace: true,
        })
        .then(() => queryClient.clear())
        .finally(() => {
          signingIn = false;
        });
    },
  });
  const router = createAppRouter(FEATURES);
  return { queryClient, apiClient, router };
}

export function App() {
  const [{ queryClient, apiClient, router }] = useState(createAppRuntime);
  return (
    <ApiClientProvider client={apiClient}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </ApiClientProvider>
  );
}
