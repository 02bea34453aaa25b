import { useParams } from 'react-router';

/**
 * The client's addresses. They all live under /app, so they never collide with the gateway's
 * API paths (`/workflows/:id` is the API's; `/app/w/:workspaceId/workflows/:id` is a page).
 */
export const appPaths = {
  home: () => '/app',
  signIn: (options: { expired?: boolean } = {}) =>
    options.expired ? '/app/sign-in?expired=1' : '/app/sign-in',
  newWorkspace: () => '/app/workspaces/new',
  extensions: () => '/app/extensions',
  /** A platform administrator's credit grants, for `workspaceId` when given. */
  grantCredits: (workspaceId?: string) =>
    workspaceId
      ? `/app/admin/credits?${new URLSearchParams({ workspaceId }).toString()}`
      : '/app/admin/credits',
  /** A page of a workspace: `page` is the path below the workspace, '' for its first page. */
  workspace: (workspaceId: string, page = '') =>
    `/app/w/${encodeURIComponent(workspaceId)}${page ? `/${page}` : ''}`,
} as const;

/** The route pattern every workspace page sits under; features' routes are relative to it. */
export const WORKSPACE_ROUTE_PATH = 'w/:workspaceId';

/** The workspace of the current page (its address keeps it, so a link or reload keeps it too). */
export function useWorkspaceId(): string {
  const { workspaceId } = useParams();
  if (!workspaceId) throw new Error('useWorkspaceId is used outside a workspace route');
  return workspaceId;
}
