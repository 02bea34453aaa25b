import { AppError, GrantCreditsBody, WorkspaceIdParams } from '@wap/contracts';
import { actorOf, parseRequestPart, type RouteHandler } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { CreditLedger } from './ledger';
import type { CreditSnapshots } from './snapshots';

/** The credit routes: members read the balance; platform administrators grant and correct. */
export function creditHandlers(deps: {
  ledger: CreditLedger;
  directory: DirectoryClient;
  snapshots: CreditSnapshots;
}): {
  get_credits: RouteHandler;
  grant_credits: RouteHandler;
} {
  return {
    async get_credits(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      if (!(await deps.directory.confirmedRoleOf(workspaceId, actor.userId))) {
        throw new AppError('NOT_FOUND', 'Workspace not found');
      }
      return { status: 200, body: { balance: await deps.ledger.balanceOf(workspaceId) } };
    },
    async grant_credits(request) {
      const actor = actorOf(request);
      const { workspaceId } = parseRequestPart(WorkspaceIdParams, request.params);
      const body = parseRequestPart(GrantCreditsBody, request.body);
      if (!actor.platformAdmin) {
        throw new AppError('FORBIDDEN', 'Only platform administrators can grant credits');
      }
      const workspace = await deps.directory.confirmedWorkspace(workspaceId);
      if (!workspace || workspace.deleted) throw new AppError('NOT_FOUND', 'Workspace not found');
      const balance = await deps.ledger.record({
        workspaceId,
        amount: body.amount,
        kind: body.amount > 0 ? 'grant' : 'correction',
        reason: body.reason,
        createdBy: actor.userId,
      });
      await deps.snapshots.publish(workspaceId);
      return { status: 201, body: { balance } };
    },
  };
}
