import { and, eq, inArray } from 'drizzle-orm';
import type { ApprovalRecipientsReply, ApprovalRecipientsRequest } from '@wap/contracts';
import type { SqlDatabase } from '@wap/platform';
import { members, users, workspaces } from '../db/schema';

/**
 * Answers workflow-runner's question before it emails an approval's reviewers: the workspace's
 * `email_on_approval` and each reviewer's own `approval_tasks_email` (spec endpoint 7).
 */
export function createApprovalRecipients(deps: { db: SqlDatabase }) {
  return async function approvalRecipients(
    request: ApprovalRecipientsRequest,
  ): Promise<ApprovalRecipientsReply> {
    const [workspace] = await deps.db
      .select({ emailOnApproval: workspaces.emailOnApproval, deletedAt: workspaces.deletedAt })
      .from(workspaces)
      .where(eq(workspaces.id, request.workspaceId));
    if (!workspace || workspace.deletedAt !== null || request.userIds.length === 0) {
      return { emailOnApproval: false, reviewers: [] };
    }
    const reviewers = await deps.db
      .select({
        userId: users.id,
        email: users.email,
        name: users.name,
        approvalTasksEmail: users.approvalTasksEmail,
      })
      .from(members)
      .innerJoin(users, eq(users.id, members.userId))
      .where(
        and(eq(members.workspaceId, request.workspaceId), inArray(members.userId, request.userIds)),
      );
    return { emailOnApproval: workspace.emailOnApproval, reviewers };
  };
}
