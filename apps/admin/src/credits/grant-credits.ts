import { AppError, CreditBalanceResponse, creditRoutes } from '@wap/contracts';
import { callRoute } from '@wap/bus-protocol';
import { operatorActor, operatorRequest, type AdminContext } from '../operator';

const GRANT_ROUTE = creditRoutes.find((route) => route.operationId === 'grant_credits');

export interface GrantResult {
  workspaceId: string;
  amount: number;
  balance: number;
}

/** `credits grant`: the same grant `POST /workspaces/{id}/credits/grants` makes, by workflow-runner. */
export async function grantCredits(
  context: AdminContext,
  grant: { workspaceId: string; amount: number; reason: string },
): Promise<GrantResult> {
  if (!GRANT_ROUTE) throw new Error('the route table has no grant_credits route');
  const actor = await operatorActor(context);
  const reply = await callRoute(
    context.platform.bus,
    GRANT_ROUTE.subject,
    operatorRequest(actor, {
      params: { workspaceId: grant.workspaceId },
      body: { amount: grant.amount, reason: grant.reason },
    }),
    { timeoutMs: context.timeoutMs },
  );
  if (reply.status !== 201) {
    throw new AppError('INTERNAL_ERROR', `workflow-runner answered ${reply.status} to a grant`);
  }
  const { balance } = CreditBalanceResponse.parse(reply.body);
  return { workspaceId: grant.workspaceId, amount: grant.amount, balance };
}
