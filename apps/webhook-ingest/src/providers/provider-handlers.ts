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
  GRANT_CREDITS_FROM_PAYMENT_SUBJECT,
  GrantCreditsFromPaymentReply,
  type GrantCreditsFromPaymentRequest,
  type RawServiceRequest,
  type ServiceReply,
} from '@wap/contracts';
import { nestsDeeperThan } from '@wap/http';
import { BusTimeoutError, NoRespondersError, callApi, type Platform } from '@wap/platform';
import type { WebhookIngestConfig } from '../config';

type Provider = 'stripe' | 'github' | 'linear' | 'slack';

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
 * The Stripe events that buy credits: a Checkout Session whose payment is complete, created
 * with `metadata.workspace_id` and `metadata.credits` (a positive whole number as a string,
 * Stripe metadata values are strings). `async_payment_succeeded` completes delayed methods.
 */
const CREDIT_PURCHASE_EVENTS = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
]);
const StripeEvent = z.object({
  id: z.string().min(1),
  type: z.string(),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});
const PaidCheckoutSession = z.object({
  id: z.string(),
  payment_status: z.literal('paid'),
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

export interface ProviderHandlerDeps {
  platform: Pick<Platform, 'bus' | 'clock'>;
  config: WebhookIngestConfig;
  logger: Logger;
  /** How long workflow-runner may take to record a credit grant (ms). */
  grantTimeoutMs: number;
}

export function createProviderHandlers(deps: ProviderHandlerDeps) {
  const { platform, config, logger } = deps;

  /**
   * Checks the signature with the provider's secret. A provider without a secret answers 503,
   * not 404: the provider keeps retrying, so nothing sent before the secret is set is lost.
   */
  function verify(provider: Provider, request: RawServiceRequest): void {
    const secret = config.secrets[provider];
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
      logger.info({ provider, reason: check.reason }, 'refused a provider webhook');
      throw new AppError('INVALID_SIGNATURE', 'Invalid webhook signature');
    }
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

  async function grantCredits(grant: GrantCreditsFromPaymentRequest): Promise<void> {
    try {
      const reply = await callApi(
        platform.bus,
        GRANT_CREDITS_FROM_PAYMENT_SUBJECT,
        grant,
        GrantCreditsFromPaymentReply,
        { timeoutMs: deps.grantTimeoutMs },
      );
      logger.info(
        { workspaceId: grant.workspaceId, paymentEventId: grant.paymentEventId, ...reply },
        'credits from a payment',
      );
    } catch (error) {
      // Stripe retries a 503 for days: the grant is made when workflow-runner is back.
      if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
        throw new AppError('SERVICE_UNAVAILABLE', 'Credits could not be granted yet; retry');
      }
      throw error;
    }
  }

  return {
    async stripe(request: RawServiceRequest): Promise<ServiceReply> {
      verify('stripe', request);
      const event = StripeEvent.safeParse(jsonOf(request));
      if (!event.success) throw new AppError('BAD_REQUEST', 'Not a Stripe event');
      if (!CREDIT_PURCHASE_EVENTS.has(event.data.type)) return received;
      const session = PaidCheckoutSession.safeParse(event.data.data.object);
      if (!session.success) {
        // Not a credit purchase (other metadata, or still unpaid): acknowledged, nothing granted.
        logger.info({ eventId: event.data.id }, 'checkout session without a paid credit purchase');
        return received;
      }
      await grantCredits({
        workspaceId: session.data.metadata.workspace_id,
        credits: Number(session.data.metadata.credits),
        provider: 'stripe',
        paymentEventId: event.data.id,
        reason: `Stripe checkout ${session.data.id}`,
      });
      return received;
    },

    async github(request: RawServiceRequest): Promise<ServiceReply> {
      verify('github', request);
      return received;
    },

    async linear(request: RawServiceRequest): Promise<ServiceReply> {
      verify('linear', request);
      return received;
    },

    async slackEvents(request: RawServiceRequest): Promise<ServiceReply> {
      verify('slack', request);
      const challenge = SlackUrlVerification.safeParse(parsedOrUndefined(request));
      if (challenge.success) return { status: 200, body: { challenge: challenge.data.challenge } };
      return received;
    },
  };
}
