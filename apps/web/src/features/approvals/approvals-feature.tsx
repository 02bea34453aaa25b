import type { Feature } from '../../lib/routing';

/** The approvals inbox: the approval steps of workflow runs that wait for the signed-in person. */
export const approvalsFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'approvals',
      lazy: async () => ({ Component: (await import('./inbox/approvals-page')).ApprovalsPage }),
    },
    {
      // Where an approval email's Approve and Reject links lead (decision 129).
      path: 'approvals/:approvalId',
      lazy: async () => ({ Component: (await import('./approval/approval-page')).ApprovalPage }),
    },
  ],
  navEntries: [{ label: 'Approvals', path: 'approvals' }],
};
