import { z } from 'zod';
import { ErrorBodySchema } from './error-body';
import { ProviderWebhookQuery } from './provider-events';
import { defineRoutes } from './route-spec';
import { InsufficientCreditsBody } from './workflows';

/** Largest Custom Webhook body the gateway accepts (413 above it); the service may set a lower one. */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024;

export const WebhookIdParams = z.object({ webhookId: z.string() });

/** 200 of endpoint 11 when a run was started (or queued for the next running-hours window). */
export const WebhookTriggeredResponse = z.object({
  success: z.literal(true),
  workflowId: z.string(),
  eventId: z.string(),
  triggered: z.union([z.literal(0), z.literal(1)]),
  skipped: z.union([z.literal(0), z.literal(1)]),
  /** Present outside running hours: `queued` waits for `notBefore`, `dropped` never runs. */
  outsideRunningHours: z.enum(['queued', 'dropped']).optional(),
  notBefore: z.iso.datetime().optional(),
  message: z.string().optional(),
});
export type WebhookTriggeredResponse = z.infer<typeof WebhookTriggeredResponse>;

/** 200 of endpoint 11 for a workflow in draft: the request was kept as a test event only. */
export const WebhookInactiveResponse = z.object({
  success: z.literal(true),
  message: z.literal('Webhook is inactive. Test payload saved.'),
  workflowId: z.string(),
  triggered: z.literal(0),
});
export type WebhookInactiveResponse = z.infer<typeof WebhookInactiveResponse>;

/**
 * The headers a sender may use to name an event (spec, endpoint 11, duplicate suppression), in
 * the order they are looked up, lower-cased.
 */
export const IDEMPOTENCY_HEADERS = [
  'idempotency-key',
  'x-idempotency-key',
  'x-webhook-id',
  'x-delivery-id',
  'x-event-id',
  'x-message-id',
  'x-request-id',
] as const;

/** What a signed provider endpoint answers once the signature holds. */
export const ProviderWebhookResponse = z.object({ received: z.literal(true) });

const signedResponses = {
  200: { description: 'Verified and accepted', schema: ProviderWebhookResponse },
  401: {
    description: 'INVALID_SIGNATURE: missing, wrong or stale signature',
    schema: ErrorBodySchema,
  },
  413: { description: 'PAYLOAD_TOO_LARGE', schema: ErrorBodySchema },
  503: {
    description: 'SERVICE_UNAVAILABLE: no signing secret configured, or a dependency is down',
    schema: ErrorBodySchema,
  },
};

/**
 * The REST routes of webhook-ingest. The provider paths come first: the gateway registers routes
 * in order, and `/webhooks/:webhookId` would otherwise take `/webhooks/stripe`.
 */
export const webhookRoutes = defineRoutes([
  {
    operationId: 'stripe_webhook',
    summary:
      "Stripe events, signed with Stripe-Signature: a connection's own (?connection=), or the platform's (a paid checkout grants credits)",
    method: 'POST',
    path: '/webhooks/stripe',
    owner: 'webhook-ingest',
    subject: 'webhook.api.stripe.v1',
    auth: 'none',
    forwardHeaders: ['stripe-signature'],
    bodyKind: 'raw',
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    request: { query: ProviderWebhookQuery },
    responses: signedResponses,
  },
  {
    operationId: 'github_webhook',
    summary: 'GitHub events, signed with X-Hub-Signature-256',
    method: 'POST',
    path: '/webhooks/github',
    owner: 'webhook-ingest',
    subject: 'webhook.api.github.v1',
    auth: 'none',
    forwardHeaders: ['x-hub-signature-256', 'x-github-delivery', 'x-github-event'],
    bodyKind: 'raw',
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    request: { query: ProviderWebhookQuery },
    responses: signedResponses,
  },
  {
    operationId: 'linear_webhook',
    summary: 'Linear events, signed with Linear-Signature',
    method: 'POST',
    path: '/webhooks/linear',
    owner: 'webhook-ingest',
    subject: 'webhook.api.linear.v1',
    auth: 'none',
    forwardHeaders: ['linear-signature', 'linear-delivery'],
    bodyKind: 'raw',
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    request: { query: ProviderWebhookQuery },
    responses: signedResponses,
  },
  {
    operationId: 'slack_events',
    summary: "Slack Events API, signed with X-Slack-Signature (answers Slack's url_verification)",
    method: 'POST',
    path: '/webhooks/slack/events',
    owner: 'webhook-ingest',
    subject: 'webhook.api.slack_events.v1',
    auth: 'none',
    forwardHeaders: ['x-slack-signature', 'x-slack-request-timestamp'],
    bodyKind: 'raw',
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    request: { query: ProviderWebhookQuery },
    responses: {
      ...signedResponses,
      200: {
        description: 'Verified and accepted, or the URL-verification challenge answered',
        schema: z.union([ProviderWebhookResponse, z.object({ challenge: z.string() })]),
      },
    },
  },
  {
    operationId: 'trigger_webhook',
    summary: 'Custom Webhook trigger: a JSON body starts one run of a live workflow (endpoint 11)',
    method: 'POST',
    path: '/webhooks/:webhookId',
    owner: 'webhook-ingest',
    subject: 'webhook.api.trigger.v1',
    auth: 'none',
    forwardHeaders: IDEMPOTENCY_HEADERS,
    bodyKind: 'raw',
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    request: { params: WebhookIdParams },
    responses: {
      200: {
        description:
          'Started (or skipped as a duplicate, or held/dropped outside running hours), or inactive (draft); a Custom Response replaces it, as JSON or plain text',
        schema: z.union([
          WebhookTriggeredResponse,
          WebhookInactiveResponse,
          z.unknown().describe('The Custom Response, when it is on and its text is JSON'),
        ]),
        alsoAs: [{ contentType: 'text/plain' }],
      },
      308: { description: 'Sent over plain http: repeat the request at the https address' },
      400: { description: 'error = Invalid JSON body', schema: ErrorBodySchema },
      402: { description: 'INSUFFICIENT_CREDITS', schema: InsufficientCreditsBody },
      404: { description: 'error = Webhook not found', schema: ErrorBodySchema },
      410: { description: 'error = Workspace has been deleted', schema: ErrorBodySchema },
      413: { description: 'PAYLOAD_TOO_LARGE', schema: ErrorBodySchema },
      429: { description: 'RATE_LIMITED (see Retry-After)', schema: ErrorBodySchema },
      503: { description: 'SERVICE_UNAVAILABLE: nothing was stored', schema: ErrorBodySchema },
    },
  },
  {
    operationId: 'describe_webhook',
    summary: 'How to call a Custom Webhook address (text/plain); starts no run',
    method: 'GET',
    path: '/webhooks/:webhookId',
    owner: 'webhook-ingest',
    subject: 'webhook.api.describe.v1',
    auth: 'none',
    bodyKind: 'raw',
    request: { params: WebhookIdParams },
    responses: {
      200: { description: 'A short description', contentType: 'text/plain' },
      404: { description: 'error = Webhook not found', schema: ErrorBodySchema },
      410: { description: 'error = Workspace has been deleted', schema: ErrorBodySchema },
    },
  },
] as const);

/**
 * workflow-runner grants the credits a completed payment bought, once per payment event: a
 * repeat of `paymentEventId` changes nothing and answers `granted: false`.
 */
export const GRANT_CREDITS_FROM_PAYMENT_SUBJECT = 'workflow.api.grant_credits_from_payment.v1';
export const GrantCreditsFromPaymentRequest = z.object({
  workspaceId: z.uuid(),
  credits: z.number().int().positive().max(1_000_000_000),
  provider: z.literal('stripe'),
  /** The provider's event id (Stripe `evt_...`): the idempotency key when `purchaseId` is absent. */
  paymentEventId: z.string().min(1).max(255),
  /**
   * What was bought (Stripe's Checkout Session `cs_...`): the grant's idempotency key, so a
   * purchase grants once whatever events report it.
   */
  purchaseId: z.string().min(1).max(255).optional(),
  reason: z.string().min(1).max(500),
});
export type GrantCreditsFromPaymentRequest = z.infer<typeof GrantCreditsFromPaymentRequest>;
export const GrantCreditsFromPaymentReply = z.object({
  balance: z.number().int(),
  granted: z.boolean(),
});
export type GrantCreditsFromPaymentReply = z.infer<typeof GrantCreditsFromPaymentReply>;

/**
 * Each webhook-ingest replica answers an empty request on its own subject while it runs. NATS
 * answers "no responders" at once when the replica's connection is gone (the process died):
 * the claims it took are then taken over (decision 91).
 */
export const REPLICA_ALIVE_SUBJECT = 'webhook.api.replica_alive.v1';
export function webhookReplicaAliveSubject(replicaId: string): string {
  return `${REPLICA_ALIVE_SUBJECT}.${replicaId}`;
}
