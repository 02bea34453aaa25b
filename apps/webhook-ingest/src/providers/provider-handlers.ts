import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  verifyGitHubSignature,
  verifyLinearSignature,
  verifySlackSignature,
  verifyStripeSignature,
  type SignatureCheck,
  type SignatureInput,
} from '@wap/auth';
import {
  AppError,
  type GrantCreditsFromPaymentRequest,
  ProviderWebhookQuery,
  type Provider,
  type RawServiceRequest,
  type ServiceReply,
  BUS_APIS,
} from '@wap/contracts';
import { nestsDeeperThan } from '@wap/http';
import {
  BusTimeoutError,
  KvConflictError,
  NoRespondersError,
  type KvBucket,
  type Platform,
} from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import type { WebhookIngestConfig } from '../config';
import type { Delivery } from '../http/deliveries';
import type { DeliverySource } from '../trigger/trigger-deps';
import { deliveryIdentityOf, type DeliveryIdentity } from './delivery-identity';

const PROVIDER_NAMES: Record<Provider, string> = {
  stripe: 'Stripe',
  github: 'GitHub',
  linear: 'Linear',
  slack: 'Slack',
};

const VERIFIERS: Record<Provider, (input: SignatureInput) => SignatureCheck> = {
  stripe: verifyStripeSignature,
  github: verifyGitHubSignature,
  linear: verifyLinearSignature,
  slack: verifySlackSignature,
};

/**
 * The Stripe events that buy credits: a Checkout Session of the platform's own account whose
 * payment is complete, created with `metadata.workspace_id` and `metadata.credits` (a positive
 * whole number as a string, Stripe metadata values are strings), at one of the configured
 * prices (decision 148). `async_payment_succeeded` completes delayed methods.
 */
const CREDIT_PURCHASE_EVENTS = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
]);
const StripeEvent = z.object({
  id: z.string().min(1),
  type: z.string(),
  /** Set on events of a connected account (Stripe Connect): never the platform's own sale. */
  account: z.string().optional(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
const PaidCheckoutSession = z.object({
  id: z.string().min(1).max(255),
  payment_status: z.literal('paid'),
  amount_total: z.number().int().nonnegative(),
  currency: z.string().toLowerCase(),
  payment_intent: z.string().nullable().optional(),
  metadata: z.object({
    workspace_id: z.uuid(),
    credits: z.string().regex(/^[1-9]\d{0,8}$/),
  }),
});

const SlackUrlVerification = z.object({
  type: z.literal('url_verification'),
  challenge: z.string(),
});

const received: ServiceReply = { status: 200, body: { received: true } };

/** Whose secret a delivery held with: a workspace's connection, or the platform's own. */
type Signer = { kind: 'connection'; connectionId: string } | { kind: 'platform' };

export interface ProviderHandlerDeps {
  platform: Pick<Platform, 'bus' | 'clock'>;
  config: WebhookIngestConfig;
  logger: Logger;
  /** How long workflow-runner may take to record a credit grant or name a delivery's targets (ms). */
  grantTimeoutMs: number;
  /**
   * Signed bodies received within the idempotency window (the `webhook-idempotency` bucket): a
   * body received again is skipped whatever its delivery id, which no provider signs.
   */
  receivedBodies: Pick<KvBucket, 'create' | 'delete'>;
  /** Hands a delivery to one Custom Webhook address, as a request to it with the delivery's id. */
  deliverProviderEvent(
    webhookId: string,
    request: RawServiceRequest,
    body: unknown,
    source: DeliverySource,
  ): Promise<Delivery>;
}

/* eslint-disable-next-line max-lines-per-function --
  one short handler per provider, sharing the verified-delivery path */
export function createProviderHandlers(deps: ProviderHandlerDeps) {
  const { platform, config, logger } = deps;

  /**
   * Asks workflow-runner for the connection's signing secret. An unknown connection, or one with
   * no secret yet, holds no signature: answered as a wrong signature, so nothing tells a sender
   * which connection ids exist.
   */
  async function connectionSecret(provider: Provider, connectionId: string): Promise<string> {
    const { signingSecret } = await askRunner(
      () =>
        callApi(
          platform.bus,
          BUS_APIS.providerConnectionSecret,
          { provider, connectionId },
          { timeoutMs: deps.grantTimeoutMs },
        ),
      'The delivery could not be checked yet',
    );
    if (signingSecret === null) {
      logger.info({ provider, connectionId }, 'a delivery to a connection without a secret');
      throw new AppError('INVALID_SIGNATURE', 'Invalid webhook signature');
    }
    return signingSecret;
  }

  /**
   * Checks the signature: with the named connection's own secret (issue 41: a connection is
   * proven by what only the account's admin can configure), else with the platform's secret of
   * the provider. A platform without that secret answers 503, not 404: the provider keeps
   * retrying, so nothing sent before the secret is set is lost.
   */
  async function verify(provider: Provider, request: RawServiceRequest): Promise<Signer> {
    const query = ProviderWebhookQuery.safeParse(request.query);
    if (!query.success) throw new AppError('BAD_REQUEST', 'connection must be a connection id');
    const connectionId = query.data.connection;
    const secret = connectionId
      ? await connectionSecret(provider, connectionId)
      : config.secrets[provider];
    if (!secret) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `${PROVIDER_NAMES[provider]} webhooks are not configured`,
      );
    }
    const check = VERIFIERS[provider]({
      secret,
      body: request.body,
      headers: request.headers,
      nowMs: platform.clock.now().getTime(),
    });
    if (!check.valid) {
      logger.info({ provider, connectionId, reason: check.reason }, 'refused a provider webhook');
      throw new AppError('INVALID_SIGNATURE', 'Invalid webhook signature');
    }
    return connectionId ? { kind: 'connection', connectionId } : { kind: 'platform' };
  }

  function jsonOf(request: RawServiceRequest): unknown {
    const invalid = new AppError('INVALID_JSON', 'Invalid JSON body', { exposeCode: false });
    if (nestsDeeperThan(request.body)) throw invalid;
    try {
      return JSON.parse(Buffer.from(request.body).toString('utf8')) as unknown;
    } catch {
      throw invalid;
    }
  }

  function parsedOrUndefined(request: RawServiceRequest): unknown {
    try {
      return jsonOf(request);
    } catch {
      return undefined;
    }
  }

  /** Asks workflow-runner; a runner that does not answer makes the provider retry (503). */
  async function askRunner<T>(work: () => Promise<T>, what: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
        throw new AppError('SERVICE_UNAVAILABLE', `${what}; retry`);
      }
      throw error;
    }
  }

  /**
   * Starts what a verified delivery starts (decision 132): the workflows of the workspace that
   * connected the sending account whose provider events take this event, each through its
   * Custom Webhook address (test event, credits, running hours, duplicates as there). A failure
   * to store answers 503 so the provider delivers again; the delivery id keeps a repeat from
   * starting a second run where the first attempt got through.
   */
  async function startWorkflows(
    provider: Provider,
    connectionId: string,
    request: RawServiceRequest,
    body: unknown,
  ): Promise<void> {
    const identity = deliveryIdentityOf(provider, request.headers, body, request.body);
    if (!identity) return;
    const digest = createHash('sha256').update(request.body).digest('hex');
    const claim = `provider-${provider}.${connectionId}.${digest}`;
    try {
      await deps.receivedBodies.create(claim, new TextEncoder().encode(identity.deliveryId));
    } catch (error) {
      if (!(error instanceof KvConflictError)) throw error;
      logger.info(
        { provider, deliveryId: identity.deliveryId, event: identity.event },
        'a signed body already received: the delivery is skipped',
      );
      return;
    }
    try {
      await startWorkflowsOf({ provider, connectionId, ...identity }, request, body);
    } catch (error) {
      // Not handled: the provider's retry of this very body must get through.
      await deps.receivedBodies.delete(claim).catch(() => undefined);
      throw error;
    }
  }

  async function startWorkflowsOf(
    delivery: DeliveryIdentity & { provider: Provider; connectionId: string },
    request: RawServiceRequest,
    body: unknown,
  ): Promise<void> {
    const { provider } = delivery;
    const targets = await askRunner(
      () =>
        callApi(
          platform.bus,
          BUS_APIS.providerEventTargets,
          { ...delivery, receivedAt: platform.clock.now().toISOString() },
          { timeoutMs: deps.grantTimeoutMs },
        ),
      'The delivery could not be recorded yet',
    );
    const outcomes: string[] = [];
    for (const webhookId of targets.webhookIds) {
      try {
        const handed = await deps.deliverProviderEvent(webhookId, request, body, {
          provider,
          deliveryId: delivery.deliveryId,
        });
        outcomes.push(`${handed.outcome}:${handed.reason}`);
      } catch (error) {
        // An address deleted or a workspace gone since the runner answered takes nothing.
        if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'GONE')) {
          outcomes.push('refused:gone');
          continue;
        }
        throw error;
      }
    }
    logger.info(
      {
        provider,
        connectionId: delivery.connectionId,
        deliveryId: delivery.deliveryId,
        event: delivery.event,
        workspaceId: targets.workspaceId,
        outcomes,
      },
      'provider delivery',
    );
  }

  async function grantCredits(grant: GrantCreditsFromPaymentRequest): Promise<void> {
    // Stripe retries a 503 for days: the grant is made when workflow-runner is back.
    const reply = await askRunner(
      () =>
        callApi(platform.bus, BUS_APIS.grantCreditsFromPayment, grant, {
          timeoutMs: deps.grantTimeoutMs,
        }),
      'Credits could not be granted yet',
    );
    logger.info(
      { workspaceId: grant.workspaceId, paymentEventId: grant.paymentEventId, ...reply },
      'credits from a payment',
    );
  }

  /**
   * A delivery that held with a connection's secret starts that connection's workflows; one that
   * held with the platform's secret starts no workspace's (issue 41: the account it names was
   * claimed, never proven). A body that is not JSON (a form-encoded delivery) starts nothing.
   */
  async function startWorkflowsOfJson(
    provider: Provider,
    signer: Signer,
    request: RawServiceRequest,
    body = parsedOrUndefined(request),
  ) {
    if (signer.kind === 'platform') {
      logger.info({ provider }, "a delivery signed with the platform's secret: nothing started");
      return;
    }
    if (body === undefined) {
      logger.info({ provider }, 'provider delivery without a JSON body: nothing started');
      return;
    }
    await startWorkflows(provider, signer.connectionId, request, body);
  }

  /**
   * A paid credit purchase of the platform's own account at a price it sells grants its credits,
   * once per Checkout Session; any other event grants nothing.
   */
  async function grantCreditsOfPurchase(event: z.infer<typeof StripeEvent>): Promise<void> {
    if (!CREDIT_PURCHASE_EVENTS.has(event.type)) return;
    if (event.account !== undefined) {
      logger.warn(
        { eventId: event.id, account: event.account },
        "a connected account's checkout buys no credits: nothing granted",
      );
      return;
    }
    const session = PaidCheckoutSession.safeParse(event.data.object);
    if (!session.success) {
      // Not a credit purchase (other metadata, or still unpaid): acknowledged, nothing granted.
      logger.info({ eventId: event.id }, 'checkout session without a paid credit purchase');
      return;
    }
    const { metadata, amount_total: amount, currency } = session.data;
    const credits = Number(metadata.credits);
    const price = config.creditPrices.find(
      (known) =>
        known.credits === credits && known.amount === amount && known.currency === currency,
    );
    if (!price) {
      logger.warn(
        { eventId: event.id, credits, amount, currency, workspaceId: metadata.workspace_id },
        'checkout session at no credit price on sale: nothing granted',
      );
      return;
    }
    await grantCredits({
      workspaceId: metadata.workspace_id,
      credits: price.credits,
      provider: 'stripe',
      paymentEventId: event.id,
      purchaseId: session.data.id,
      reason: `Stripe checkout ${session.data.id}${session.data.payment_intent ? ` (payment ${session.data.payment_intent})` : ''}`,
    });
  }

  return {
    /** Credits are bought from the platform's own account alone: its secret, never a connection's. */
    async stripe(request: RawServiceRequest): Promise<ServiceReply> {
      const signer = await verify('stripe', request);
      const body = jsonOf(request);
      const event = StripeEvent.safeParse(body);
      if (!event.success) throw new AppError('BAD_REQUEST', 'Not a Stripe event');
      if (signer.kind === 'platform') await grantCreditsOfPurchase(event.data);
      await startWorkflowsOfJson('stripe', signer, request, body);
      return received;
    },

    async github(request: RawServiceRequest): Promise<ServiceReply> {
      await startWorkflowsOfJson('github', await verify('github', request), request);
      return received;
    },

    async linear(request: RawServiceRequest): Promise<ServiceReply> {
      await startWorkflowsOfJson('linear', await verify('linear', request), request);
      return received;
    },

    async slackEvents(request: RawServiceRequest): Promise<ServiceReply> {
      const signer = await verify('slack', request);
      const body = parsedOrUndefined(request);
      const challenge = SlackUrlVerification.safeParse(body);
      if (challenge.success) return { status: 200, body: { challenge: challenge.data.challenge } };
      await startWorkflowsOfJson('slack', signer, request, body);
      return received;
    },
  };
}
