import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { defineRoutes } from './route-spec';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const Approval = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  workflow_id: z.uuid(),
  workflow_name: z.string(),
  run_id: z.uuid(),
  step_index: z.number().int(),
  step_name: z.string(),
  message: z.string().nullable(),
  reviewer_ids: z.array(z.uuid()),
  status: z.enum(APPROVAL_STATUSES),
  decided_by: z.uuid().nullable(),
  decided_at: z.iso.datetime().nullable(),
  comment: z.string().nullable(),
  created_at: z.iso.datetime(),
});
export type Approval = z.infer<typeof Approval>;
export const ApprovalsQuery = z.object({ workspaceId: z.uuid() });
export const ApprovalsResponse = z.object({ approvals: z.array(Approval) });
export const ApprovalResponse = z.object({ approval: Approval });
export const ApprovalIdParams = z.object({ id: z.uuid() });
export const DecideApprovalBody = z.object({ comment: z.string().max(2_000).optional() });

export const approvalRoutes = defineRoutes([
  {
    operationId: 'list_approvals',
    summary: "The caller's pending approvals in a workspace, oldest first",
    method: 'GET',
    path: '/approvals',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_approvals.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { query: ApprovalsQuery },
    responses: {
      200: { description: 'Pending approvals', schema: ApprovalsResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'get_approval',
    summary:
      'One approval, for the members of its workspace (the page an approval email links to); reviewer_ids says who may decide',
    method: 'GET',
    path: '/approvals/:id',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_approval.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: ApprovalIdParams },
    responses: {
      200: { description: 'The approval', schema: ApprovalResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'approve_approval',
    summary: 'Approve: the run goes on (reviewers only; the first decision wins)',
    method: 'POST',
    path: '/approvals/:id/approve',
    owner: 'workflow-runner',
    subject: 'workflow.api.approve_approval.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: ApprovalIdParams, body: DecideApprovalBody },
    responses: {
      200: { description: 'Approved', schema: ApprovalResponse },
      409: { description: 'CONFLICT: already decided', schema: ErrorBodySchema },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'reject_approval',
    summary: 'Reject: the run fails (reviewers only; the first decision wins)',
    method: 'POST',
    path: '/approvals/:id/reject',
    owner: 'workflow-runner',
    subject: 'workflow.api.reject_approval.v1',
    auth: 'session',
    bodyKind: 'json',
    request: { params: ApprovalIdParams, body: DecideApprovalBody },
    responses: {
      200: { description: 'Rejected', schema: ApprovalResponse },
      409: { description: 'CONFLICT: already decided', schema: ErrorBodySchema },
      ...sessionErrorResponses,
    },
  },
] as const);

/** storage's bus API for approval emails (decision 73). */
export const APPROVAL_SUBJECTS = {
  recipients: 'storage.api.approval_recipients.v1',
} as const;
/** Who of `userIds` (members of the workspace) is to be emailed about an approval. */
export const ApprovalRecipientsRequest = z.object({
  workspaceId: z.uuid(),
  userIds: z.array(z.uuid()).max(100),
});
export type ApprovalRecipientsRequest = z.infer<typeof ApprovalRecipientsRequest>;
export const ApprovalRecipientsReply = z.object({
  /** The workspace's option (spec endpoint 7); false for a deleted workspace. */
  emailOnApproval: z.boolean(),
  /** The members among `userIds`, with their own Approval tasks email preference. */
  reviewers: z.array(
    z.object({
      userId: z.uuid(),
      email: z.string(),
      name: z.string(),
      approvalTasksEmail: z.boolean(),
    }),
  ),
});
export type ApprovalRecipientsReply = z.infer<typeof ApprovalRecipientsReply>;
