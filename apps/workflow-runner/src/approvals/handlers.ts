import {
  AppError,
  ApprovalIdParams,
  ApprovalsQuery,
  DecideApprovalBody,
  type Approval,
  type ServiceRequest,
  RUN_CANCELLED,
} from '@wap/contracts';
import { type KvBucket } from '@wap/platform';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { ApprovalRepository, ApprovalView, Decision } from './repository';

export type ApprovalOperation =
  'list_approvals' | 'get_approval' | 'approve_approval' | 'reject_approval';

function approvalBody({ inflightKey: _inflightKey, ...approval }: ApprovalView): Approval {
  return approval;
}

/** The approval routes: reviewers decide, the first decision wins (decision 72). */
export function approvalHandlers(deps: {
  approvals: ApprovalRepository;
  directory: DirectoryClient;
  inflight: KvBucket;
  /** A decided approval's run is due again: the executor claims it at once. */
  onRunDue: () => void;
}): Record<ApprovalOperation, RouteHandler> {
  const { approvals, directory } = deps;

  /** The approval, to a member of its workspace; anyone else learns nothing of it (404). */
  async function approvalForMember(request: ServiceRequest): Promise<ApprovalView> {
    const actor = actorOf(request);
    const { id } = parseRequestPart(ApprovalIdParams, request.params);
    const approval = await approvals.find(id);
    if (!approval || !(await directory.confirmedRoleOf(approval.workspace_id, actor.userId))) {
      throw new AppError('NOT_FOUND', 'Approval not found');
    }
    return approval;
  }

  async function decide(request: ServiceRequest, decision: Decision) {
    const actor = actorOf(request);
    const body = parseRequestPart(DecideApprovalBody, request.body ?? {});
    const approval = await approvalForMember(request);
    const id = approval.id;
    if (!approval.reviewer_ids.includes(actor.userId)) {
      throw new AppError('FORBIDDEN', 'Only the reviewers of this approval can decide it');
    }
    if (!(await approvals.decide(id, decision, actor.userId, body.comment ?? null))) {
      const current = await approvals.find(id);
      if (current && current.decided_by === null && current.comment === RUN_CANCELLED) {
        throw new AppError('CONFLICT', 'This approval was closed: its run was cancelled');
      }
      throw new AppError('CONFLICT', `This approval was already ${current?.status ?? 'decided'}`);
    }
    if (decision === 'rejected' && approval.inflightKey) {
      // The run ended: an identical webhook request may run again (decision 40).
      await deps.inflight.delete(approval.inflightKey);
    }
    deps.onRunDue();
    const decided = await approvals.find(id);
    if (!decided) throw new AppError('NOT_FOUND', 'Approval not found');
    return { status: 200, body: { approval: approvalBody(decided) } };
  }

  return {
    async list_approvals(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(ApprovalsQuery, request.query);
      if (!(await directory.confirmedRoleOf(workspaceId, actor.userId))) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      const pending = await approvals.pendingFor(workspaceId, actor.userId);
      return { status: 200, body: { approvals: pending.map(approvalBody) } };
    },
    async get_approval(request) {
      return { status: 200, body: { approval: approvalBody(await approvalForMember(request)) } };
    },
    approve_approval: (request) => decide(request, 'approved'),
    reject_approval: (request) => decide(request, 'rejected'),
  };
}
