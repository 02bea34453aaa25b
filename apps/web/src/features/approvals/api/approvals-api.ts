import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { z } from 'zod';
import type {
  Approval,
  ApprovalResponse,
  ApprovalsResponse,
  DecideApprovalBody,
} from '@wap/contracts';
import { useApiClient } from '../../../lib/api';
import { workflowsKeys } from '../../workflows';
import { approvalsKeys } from './approvals-keys';

export type { Approval };
export type Decision = 'approve' | 'reject';

/** How often the inbox asks for new approvals while it is open, in ms. */
export const INBOX_REFRESH_MS = 10_000;

/** The caller's pending approvals in the workspace, oldest first. */
export function usePendingApprovals(workspaceId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: approvalsKeys.pending(workspaceId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ApprovalsResponse>>('/approvals', {
        signal,
        query: { workspaceId },
      }),
    refetchInterval: INBOX_REFRESH_MS,
  });
}

/** One approval, as its email's link shows it (members of its workspace only). */
export function useApproval(approvalId: string) {
  const api = useApiClient();
  return useQuery({
    queryKey: approvalsKeys.one(approvalId),
    queryFn: ({ signal }) =>
      api.get<z.infer<typeof ApprovalResponse>>(`/approvals/${encodeURIComponent(approvalId)}`, {
        signal,
      }),
  });
}

/** Approves or rejects; the first decision of any reviewer settles the approval. */
export function useDecideApproval(workspaceId: string) {
  const api = useApiClient();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: {
      id: string;
      decision: Decision;
      body: z.infer<typeof DecideApprovalBody>;
    }) =>
      api.post<z.infer<typeof ApprovalResponse>>(
        `/approvals/${encodeURIComponent(input.id)}/${input.decision}`,
        input.body,
      ),
    onSettled: (data, _error, input) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: approvalsKeys.pending(workspaceId) }),
        queryClient.invalidateQueries({ queryKey: approvalsKeys.one(input.id) }),
        // The run goes on (or ends): its page and its workflow's runs are read again.
        ...(data
          ? [
              queryClient.invalidateQueries({ queryKey: workflowsKeys.run(data.approval.run_id) }),
              queryClient.invalidateQueries({
                queryKey: workflowsKeys.workflow(data.approval.workflow_id),
              }),
            ]
          : []),
      ]),
  });
}
