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

/**
 * Which providers make a webhook's signing secret themselves (Linear, Slack and Stripe show it
 * once the webhook exists): the owner pastes it. GitHub takes the secret it is given, so the
 * platform makes one when none is pasted (issue 41, decision 151).
 */
export const PROVIDER_MAKES_SECRET: Record<Provider, boolean> = {
  github: false,
  linear: true,
  slack: true,
  stripe: true,
};

const SigningSecret = z.string().trim().min(16, 'at least 16 characters').max(200);

function secretWhereProviderMakesIt(
  body: { provider: Provider; signingSecret?: string | undefined },
  context: z.RefinementCtx,
): void {
  if (PROVIDER_MAKES_SECRET[body.provider] && body.signingSecret === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['signingSecret'],
      message: "paste the signing secret from the provider's webhook settings",
    });
  }
}

export const ConnectProviderAccountBody = z
  .object({
    provider: Provider,
    /** The provider's own id of the account, as its deliveries carry it (PROVIDER_ACCOUNT_TERMS). */
    accountId: z.string().trim().min(1).max(200),
    /** What the workspace calls it; the account id when left out. */
    label: z.string().trim().min(1).max(200).optional(),
    /** The webhook's signing secret at the provider; GitHub's is made here when left out. */
    signingSecret: SigningSecret.optional(),
  })
  .superRefine(secretWhereProviderMakesIt);
export type ConnectProviderAccountBody = z.infer<typeof ConnectProviderAccountBody>;

/**
 * The query of the signed provider endpoints: `connection` names the workspace's connection whose
 * secret the delivery is checked with; without it only the platform's own secret is tried, and a
 * delivery that holds with that starts no workspace's workflows (Stripe credit purchases do).
 */
export const ProviderWebhookQuery = z.object({
  connection: z.uuid('connection must be a connection id').optional(),
});
export type ProviderWebhookQuery = z.infer<typeof ProviderWebhookQuery>;

/** A new signing secret for a connection: pasted, or (GitHub) made here when left out. */
export const ReplaceSigningSecretBody = z.object({ signingSecret: SigningSecret.optional() });
export type ReplaceSigningSecretBody = z.infer<typeof ReplaceSigningSecretBody>;

/**
 * Where a connection's deliveries are sent: the provider's signed endpoint with the connection
 * named in the query, so the endpoint checks the signature with that connection's secret.
 */
export function connectionDeliveryPath(provider: Provider, connectionId: string): string {
  const endpoint = provider === 'slack' ? '/webhooks/slack/events' : `/webhooks/${provider}`;
  return `${endpoint}?connection=${connectionId}`;
}

export const ProviderAccount = z.object({
  id: z.uuid(),
  workspace_id: z.uuid(),
  provider: Provider,
  account_id: z.string(),
  label: z.string(),
  created_by: z.uuid(),
  created_at: z.iso.datetime(),
  /** Path (on the public origin) to give the provider as the webhook's address. */
  delivery_path: z.string(),
  /** False until a signing secret is set: a connection made before secrets receives nothing. */
  has_signing_secret: z.boolean(),
  /** When a delivery first held with the connection's secret; null until then. */
  proven_at: z.iso.datetime().nullable(),
});
export type ProviderAccount = z.infer<typeof ProviderAccount>;
/**
 * `signingSecret` is there only when the platform made it (GitHub, none pasted): shown this once,
 * for the provider's webhook settings, and never returned again.
 */
export const ProviderAccountResponse = z.object({
  account: ProviderAccount,
  signingSecret: z.string().optional(),
});
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
        description:
          'CONFLICT: the account, or one it is part of or holds, is connected and proven elsewhere',
        schema: ErrorBodySchema,
      },
      429: {
        description: 'RATE_LIMITED: too many connection attempts by the workspace this hour',
        schema: ErrorBodySchema,
      },
      ...sessionErrorResponses,
    },
  },
  {
    operationId: 'replace_provider_signing_secret',
    summary: "Set a connection's signing secret; deliveries hold with it from then on (owners)",
    method: 'PUT',
    path: '/workspaces/:workspaceId/provider-accounts/:connectionId/signing-secret',
    owner: 'workflow-runner',
    subject: 'workflow.api.replace_provider_signing_secret.v1',
    auth: 'session',
    extensionToken: 'refused',
    bodyKind: 'json',
    request: { params: ProviderAccountIdParams, body: ReplaceSigningSecretBody },
    responses: {
      200: { description: 'Set', schema: ProviderAccountResponse },
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
 * `workflow.api.provider_connection_secret.v1`, asked by webhook-ingest before it checks a
 * delivery sent to a connection: the connection's signing secret, or null when the connection
 * does not exist (for that provider) or has none. The reply reaches webhook-ingest's inbox alone.
 */
export const PROVIDER_CONNECTION_SECRET_SUBJECT = 'workflow.api.provider_connection_secret.v1';
export const ProviderConnectionSecretRequest = z.object({
  provider: Provider,
  connectionId: z.uuid(),
});
export type ProviderConnectionSecretRequest = z.infer<typeof ProviderConnectionSecretRequest>;
export const ProviderConnectionSecretReply = z.object({ signingSecret: z.string().nullable() });
export type ProviderConnectionSecretReply = z.infer<typeof ProviderConnectionSecretReply>;

/**
 * `workflow.api.provider_event_targets.v2`, asked by webhook-ingest for a delivery that held
 * with a connection's secret: records it (the first receipt of a delivery id), marks the
 * connection proven, and names the Custom Webhook addresses of its workspace's workflows whose
 * provider events take it. A delivery naming accounts none of which is the connection's starts
 * nothing.
 */
export const PROVIDER_EVENT_TARGETS_SUBJECT = 'workflow.api.provider_event_targets.v2';
export const ProviderEventTargetsRequest = z.object({
  provider: Provider,
  /** The connection whose signing secret the delivery held with. */
  connectionId: z.uuid(),
  deliveryId: z.string().min(1).max(200),
  event: z.string().min(1).max(200),
  /** Every id in the delivery that may name a connected account, most specific first. */
  accountIds: z.array(z.string().min(1).max(200)).max(10),
  receivedAt: z.iso.datetime(),
});
export type ProviderEventTargetsRequest = z.infer<typeof ProviderEventTargetsRequest>;

/**
 * v1 routed a delivery checked with the platform's secret by the account it names, which any
 * workspace could claim (issue 41). Still served while a webhook-ingest of an older release may
 * ask during a rolling update, and answered with no targets: nothing starts on a claim alone.
 */
export const PROVIDER_EVENT_TARGETS_V1_SUBJECT = 'workflow.api.provider_event_targets.v1';
export const ProviderEventTargetsV1Request = ProviderEventTargetsRequest.omit({
  connectionId: true,
});
export const ProviderEventTargetsReply = z.object({
  workspaceId: z.uuid().nullable(),
  webhookIds: z.array(z.uuid()),
});
export type ProviderEventTargetsReply = z.infer<typeof ProviderEventTargetsReply>;
