import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { WorkspaceIdParams } from './directory';
import { defineRoutes } from './route-spec';

export const CreditBalanceResponse = z.object({ balance: z.number().int() });
export type CreditBalanceResponse = z.infer<typeof CreditBalanceResponse>;

export const GrantCreditsBody = z.object({
  /** Credits to add; negative for a correction. */
  amount: z
    .number()
    .int()
    .refine((amount) => amount !== 0, 'amount must not be zero')
    .refine((amount) => Math.abs(amount) <= 1_000_000_000, 'amount is out of range'),
  reason: z.string().trim().min(1).max(500),
});
export type GrantCreditsBody = z.infer<typeof GrantCreditsBody>;

export const creditRoutes = defineRoutes([
  {
    operationId: 'get_credits',
    summary: "The workspace's credit balance (members only)",
    method: 'GET',
    path: '/workspaces/:workspaceId/credits',
    owner: 'workflow-runner',
    subject: 'workflow.api.get_credits.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The balance', schema: CreditBalanceResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'grant_credits',
    summary: 'Grant (or correct) credits; platform administrators only',
    method: 'POST',
    path: '/workspaces/:workspaceId/credits/grants',
    owner: 'workflow-runner',
    subject: 'workflow.api.grant_credits.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: GrantCreditsBody },
    responses: {
      201: { description: 'The new balance', schema: CreditBalanceResponse },
      409: {
        description: 'The correction would take the balance below zero',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
] as const);
