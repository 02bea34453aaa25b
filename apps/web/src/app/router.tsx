import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { LoadingState } from '../components';
import { appPaths, WORKSPACE_ROUTE_PATH, type Feature } from '../lib/routing';
import { AccountLayout } from './layout/account-layout';
import { PublicLayout } from './layout/public-layout';
import { SignedInLayout } from './layout/signed-in-layout';
import { WorkspaceLayout } from './layout/workspace-layout';
import { NotFoundPage } from './not-found-page';
import { RouteErrorPage } from './route-error-page';

/**
 * The route tree: features' pages under the three layouts. Everything the client shows lives
 * under /app; `/` only leads there.
 */
export function appRoutes(features: readonly Feature[]): RouteObject[] {
  return [
    { path: '/', element: <Navigate to={appPaths.home()} replace /> },
    {
      path: '/app',
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <LoadingState />,
      children: [
        {
          element: <PublicLayout />,
          children: [
            ...features.flatMap((feature) => feature.publicRoutes ?? []),
            { path: '*', element: <NotFoundPage /> },
          ],
        },
        {
          element: <SignedInLayout />,
          children: [
            {
              element: <AccountLayout />,
              children: features.flatMap((feature) => feature.accountRoutes ?? []),
            },
            {
              path: WORKSPACE_ROUTE_PATH,
              element: <WorkspaceLayout navEntries={features.flatMap((f) => f.navEntries ?? [])} />,
              children: [
                ...features.flatMap((feature) => feature.workspaceRoutes ?? []),
                { path: '*', element: <NotFoundPage /> },
              ],
            },
          ],
        },
      ],
    },
  ];
}

export function createAppRouter(features: readonly Feature[]) {
  return createBrowserRouter(appRoutes(features));
}
