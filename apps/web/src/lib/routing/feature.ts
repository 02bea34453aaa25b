import type { RouteObject } from 'react-router';

/** A link of the workspace navigation. */
export interface NavEntry {
  /** Visible text, also the link's accessible name. */
  label: string;
  /** Path below /app/w/:workspaceId; '' is the workspace's first page. */
  path: string;
}

/**
 * What a feature (`src/features/<area>`) gives the app shell. Route objects should load their
 * page with `lazy`, so the feature's code is fetched when a person first opens it and the first
 * page stays small.
 */
export interface Feature {
  /** Pages that need no session (sign-in), under /app. */
  publicRoutes?: RouteObject[];
  /** Pages of a signed-in person outside any workspace, under /app. */
  accountRoutes?: RouteObject[];
  /** Pages inside a workspace, relative to /app/w/:workspaceId. */
  workspaceRoutes?: RouteObject[];
  /** The feature's links in the workspace navigation, in order. */
  navEntries?: NavEntry[];
}
