/** The approvals feature's query keys. */
export const approvalsKeys = {
  all: ['approvals'] as const,
  pending: (workspaceId: string) => [...approvalsKeys.all, 'pending', workspaceId] as const,
  one: (approvalId: string) => [...approvalsKeys.all, 'one', approvalId] as const,
};
