import type { Feature } from '../../lib/routing';

/** The approvals inbox: the approval steps of workflow runs that wait for the signed-in person. */
export const approvalsFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'approvals',
      lazy: async () => ({ Component: (await import('./inbox/approvals-page')).ApprovalsPage }),
    },
  ],
  navEntries: [{ label: 'Approvals', path: 'approvals' }],
};
