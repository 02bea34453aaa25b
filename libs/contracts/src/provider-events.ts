import { z } from 'zod';
import { ErrorBodySchema, sessionErrorResponses } from './error-body';
import { WorkspaceIdParams } from './directory';
import { defineRoutes } from './route-spec';

/**
 * Provider events (decision 132): the signed endpoints' deliveries start the workflows of the
 * workspace that connected the provider account, through those workflows' Custom Webhook.
 */
export const PROVIDERS = ['github', 'linear', 'slack', 'stripe'] as const;
export const Provider = z.enum(PROVIDERS);
export type Provider = z.infer<typeof Provider>;

/**
 * The header each provider signs its deliveries with. A delivery kept as a test event leaves it
 * out: a signature is a credential for its body, and members who read test events could replay
 * it within the provider's tolerance.
 */
export const PROVIDER_SIGNATURE_HEADERS: Record<Provider, string> = {
  github: 'x-hub-signature-256',
  linear: 'linear-signature',
  slack: 'x-slack-signature',
  stripe: 'stripe-signature',
};

/** How each provider's account is named when it is connected, for the web app and the docs. */
export const PROVIDER_ACCOUNT_TERMS: Record<Provider, string> = {
  github: 'installation id or repository (owner/name)',
  linear: 'organization id',
  slack: 'workspace (team) id',
  stripe: 'account id (acct_…)',
};

/**
 * An event filter: `pull_request.opened`, or a prefix up to a dot (`pull_request` takes every
 * action), or `*` for every event of the provider.
 */
export const ProviderEventFilter = z
  .string()
  .trim()
  .regex(/^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*)$/, 'an event name such as pull_request.opened')
  .max(100);

/** On a Custom Webhook trigger: also start on these events of the workspace's connected account. */
export const ProviderEventsTrigger = z.object({
  provider: Provider,
  events: z.array(ProviderEventFilter).min(1).max(20),
});
export type ProviderEventsTrigger = z.infer<typeof ProviderEventsTrigger>;

/** Whether `event` (`pull_request.opened`) is taken by one of `filters`. */
export function eventMatches(filters: readonly string[], event: string): boolean {
  return filters.some(
    (filter) => filter === '*' || filter === event || event.startsWith(`${filter}.`),
  );
}

export const ProviderAccountIdParams = WorkspaceIdParams.extend({ connectionId: z.uuid() });

export const ConnectProviderAccountBody = z.object({
  provider: Provider,
  /** The provider's own id of the account, as its deliveries carry it (PROVIDER_ACCOUNT_TERMS). */
  accountId: z.string().trim().min(1).max(200),
  /** What the workspace calls it; the account id when left out. */
  label: z.string().trim().min(1).max(200).optional(),
});
export type ConnectProviderAccountBody = z.infer<typeof ConnectProviderAccountBody>;

export const ProviderAccount = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  provider: Provider,
  account_id: z.string(),
  label: z.string(),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
});
export type ProviderAccount = z.infer<typeof ProviderAccount>;
export const ProviderAccountResponse = z.object({ account: ProviderAccount });
export const ProviderAccountsResponse = z.object({ accounts: z.array(ProviderAccount) });

/** What one delivery did for one workflow. */
export const DeliveryTarget = z.object({
  workflow_id: z.uuid(),
  workflow_name: z.string(),
  /** The test event it was kept as. */
  event_id: z.uuid(),
  /** The run it started; null when it started none (draft, duplicate, credits, running hours). */
  run_id: z.uuid().nullable(),
  run_status: z.string().nullable(),
});
export const ProviderDelivery = z.object({
  id: z.uuid(),
  provider: Provider,
  /** The provider's delivery id, by which repeats are recognised. */
  delivery_id: z.string(),
  event: z.string(),
  account_id: z.string().nullable(),
  received_at: z.iso.datetime(),
  targets: z.array(DeliveryTarget),
});
export type ProviderDelivery = z.infer<typeof ProviderDelivery>;
/** Deliveries pages: newest first; `limit` 1 to 100 (default 50). */
export const PROVIDER_DELIVERIES_PAGE = { default: 50, max: 100 } as const;
export const ListProviderDeliveriesQuery = z.object({
  cursor: z.string().max(300).optional(),
  limit: z
    .string()
    .regex(/^[0-9]{1,3}$/, 'limit must be a whole number')
    .refine(
      (value) => Number(value) >= 1 && Number(value) <= PROVIDER_DELIVERIES_PAGE.max,
      `limit must be 1 to ${PROVIDER_DELIVERIES_PAGE.max}`,
    )
    .optional(),
});
export const ProviderDeliveriesPage = z.object({
  deliveries: z.array(ProviderDelivery),
  nextCursor: z.string().nullable(),
});

export const providerEventRoutes = defineRoutes([
  {
    operationId: 'list_provider_accounts',
    summary: 'The provider accounts connected to the workspace (members)',
    method: 'GET',
    path: '/workspaces/:workspaceId/provider-accounts',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_provider_accounts.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams },
    responses: {
      200: { description: 'The accounts', schema: ProviderAccountsResponse },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'connect_provider_account',
    summary:
      "Connect a provider account: its verified events start the workspace's workflows (owners)",
    method: 'POST',
    path: '/workspaces/:workspaceId/provider-accounts',
    owner: 'workflow-runner',
    subject: 'workflow.api.connect_provider_account.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: WorkspaceIdParams, body: ConnectProviderAccountBody },
    responses: {
      201: { description: 'Connected', schema: ProviderAccountResponse },
      409: {
        description: 'CONFLICT: the account is connected to a workspace already',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'disconnect_provider_account',
    summary: 'Disconnect a provider account; its events start nothing from then on (owners)',
    method: 'DELETE',
    path: '/workspaces/:workspaceId/provider-accounts/:connectionId',
    owner: 'workflow-runner',
    subject: 'workflow.api.disconnect_provider_account.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'none',
    request: { params: ProviderAccountIdParams },
    responses: { 204: { description: 'Disconnected' }, ...sessionErrorResponses },
  },
  {
    operationId: 'list_provider_deliveries',
    summary: "The workspace's recent provider deliveries and what each started (members)",
    method: 'GET',
    path: '/workspaces/:workspaceId/provider-deliveries',
    owner: 'workflow-runner',
    subject: 'workflow.api.list_provider_deliveries.v1',
    auth: 'session',
    bodyKind: 'none',
    request: { params: WorkspaceIdParams, query: ListProviderDeliveriesQuery },
    responses: {
      200: { description: 'A page, newest first', schema: ProviderDeliveriesPage },
      ...sessionErrorResponses,
    },
  },
] as const);

/**
 * `workflow.api.provider_event_targets.v1`, asked by webhook-ingest for a verified delivery:
 * records it (the first receipt of a delivery id), and names the Custom Webhook addresses of the
 * connected workspace's workflows whose provider events take it.
 */
export const PROVIDER_EVENT_TARGETS_SUBJECT = 'workflow.api.provider_event_targets.v1';
export const ProviderEventTargetsRequest = z.object({
  provider: Provider,
  deliveryId: z.string().min(1).max(200),
  event: z.string().min(1).max(200),
  /** Every id in the delivery that may name a connected account, most specific first. */
  accountIds: z.array(z.string().min(1).max(200)).max(10),
  receivedAt: z.iso.datetime(),
});
export type ProviderEventTargetsRequest = z.infer<typeof ProviderEventTargetsRequest>;
export const ProviderEventTargetsReply = z.object({
  workspaceId: z.uuid().nullable(),
  webhookIds: z.array(z.uuid()),
});
export type ProviderEventTargetsReply = z.infer<typeof ProviderEventTargetsReply>;
