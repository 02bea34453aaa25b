import { z } from 'zod';
import { WEBHOOK_BODY_LIMIT_BYTES } from '@wap/contracts';
import { envBoolean, parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/** webhook-ingest's own variables, shared by its process and the embedded launcher. */
export const WebhookIngestEnv = z.object({
  /** Largest Custom Webhook body in bytes (413 above); at most the gateway's route limit. */
  WEBHOOK_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .max(WEBHOOK_BODY_LIMIT_BYTES)
    .default(WEBHOOK_BODY_LIMIT_BYTES),
  /** How long a repeat of an idempotency header value is skipped, in ms (default 24 h). */
  WEBHOOK_IDEMPOTENCY_WINDOW_MS: z.coerce.number().int().positive().default(86_400_000),
  /**
   * Age after which an identical request may take over a fingerprint claim whose event never
   * became a run (its replica died before storing it), in ms (default 10 min).
   */
  WEBHOOK_INFLIGHT_ABANDON_MS: z.coerce.number().int().positive().default(600_000),
  /** Requests per second one address may send to one replica, sustained. */
  WEBHOOK_RATE_LIMIT_PER_SECOND: z.coerce.number().positive().default(100),
  /** Requests one address may send to one replica at once. */
  WEBHOOK_RATE_LIMIT_BURST: z.coerce.number().int().positive().default(200),
  /** Answer requests that arrived over plain http with a 308 to the https address. */
  WEBHOOK_HTTPS_REDIRECT: envBoolean(true),
  /** Public https origin of the webhook addresses (default: https:// and the request's Host). */
  PUBLIC_BASE_URL: z.url().optional(),
  /** Stripe endpoint signing secret (whsec_...); unset: /webhooks/stripe answers 503. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /**
   * The credit packages on sale, as `credits:amount:currency` separated by commas, the amount in
   * the currency's smallest unit (`1000:900:usd` sells 1,000 credits for $9.00). A Checkout
   * Session grants credits only when its metadata's credits, `amount_total` and `currency` are
   * one of these; unset: no purchase grants anything.
   */
  STRIPE_CREDIT_PRICES: z
    .string()
    .trim()
    .regex(
      /^(\d{1,9}:\d{1,12}:[a-zA-Z]{3})(,\s*\d{1,9}:\d{1,12}:[a-zA-Z]{3})*$/,
      'give credits:amount:currency, separated by commas',
    )
    .transform(parseCreditPrices)
    .optional(),
  /** GitHub webhook secret; unset: /webhooks/github answers 503. */
  GITHUB_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Linear webhook signing secret; unset: /webhooks/linear answers 503. */
  LINEAR_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Slack app signing secret; unset: /webhooks/slack/events answers 503. */
  SLACK_SIGNING_SECRET: z.string().min(1).optional(),
});
export type WebhookIngestEnv = z.infer<typeof WebhookIngestEnv>;

/** A credit package on sale: so many credits for so much money. */
export interface CreditPrice {
  credits: number;
  /** In the currency's smallest unit, as Stripe's `amount_total`. */
  amount: number;
  /** Lower-case ISO code, as Stripe sends it. */
  currency: string;
}

function parseCreditPrices(text: string): CreditPrice[] {
  return text.split(',').map((entry) => {
    const [credits, amount, currency] = entry.trim().split(':');
    return {
      credits: Number(credits),
      amount: Number(amount),
      currency: (currency ?? '').toLowerCase(),
    };
  });
}

/**
 * The webhook-ingest process's environment: the common service variables, its own, and its
 * direct HTTP door (the embedded runtime has one port, the gateway's: decision 90).
 */
export const WebhookIngestServiceEnv = ServiceEnv.extend(WebhookIngestEnv.shape).extend({
  /** Port of the direct webhook door (0: a free one; `off`: none, only the gateway forwards). */
  WEBHOOK_PORT: z
    .union([z.literal('off'), z.coerce.number().int().min(0).max(65535)])
    .default(3001),
  /** Proxies in front of the direct door whose X-Forwarded-For and -Proto are believed. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
});
export type WebhookIngestServiceEnv = z.infer<typeof WebhookIngestServiceEnv>;

export const WEBHOOK_SECRET_KEYS = [
  'STRIPE_WEBHOOK_SECRET',
  'GITHUB_WEBHOOK_SECRET',
  'LINEAR_WEBHOOK_SECRET',
  'SLACK_SIGNING_SECRET',
] as const;

/** What the service needs, in its own terms; every field has a default but the secrets. */
export interface WebhookIngestConfig {
  bodyLimitBytes: number;
  idempotencyWindowMs: number;
  inflightAbandonMs: number;
  rateLimit: { perSecond: number; burst: number };
  httpsRedirect: boolean;
  publicBaseUrl?: string;
  secrets: { stripe?: string; github?: string; linear?: string; slack?: string };
  /** The credit packages a Stripe Checkout Session may buy; none: purchases grant nothing. */
  creditPrices: readonly CreditPrice[];
  /** The direct HTTP door (load balancer → webhook-ingest); none: only the gateway forwards. */
  direct?: DirectDoorConfig;
}

export interface DirectDoorConfig {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** Proxies in front whose X-Forwarded-For and -Proto are believed. */
  trustProxyHops: number;
}

export const DEFAULT_WEBHOOK_INGEST_CONFIG: WebhookIngestConfig = {
  bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
  idempotencyWindowMs: 86_400_000,
  inflightAbandonMs: 600_000,
  rateLimit: { perSecond: 100, burst: 200 },
  httpsRedirect: true,
  secrets: {},
  creditPrices: [],
};

export function webhookIngestConfigFromEnv(env: WebhookIngestEnv): WebhookIngestConfig {
  return {
    bodyLimitBytes: env.WEBHOOK_BODY_LIMIT_BYTES,
    idempotencyWindowMs: env.WEBHOOK_IDEMPOTENCY_WINDOW_MS,
    inflightAbandonMs: env.WEBHOOK_INFLIGHT_ABANDON_MS,
    rateLimit: {
      perSecond: env.WEBHOOK_RATE_LIMIT_PER_SECOND,
      burst: env.WEBHOOK_RATE_LIMIT_BURST,
    },
    httpsRedirect: env.WEBHOOK_HTTPS_REDIRECT,
    publicBaseUrl: env.PUBLIC_BASE_URL,
    secrets: {
      stripe: env.STRIPE_WEBHOOK_SECRET,
      github: env.GITHUB_WEBHOOK_SECRET,
      linear: env.LINEAR_WEBHOOK_SECRET,
      slack: env.SLACK_SIGNING_SECRET,
    },
    creditPrices: env.STRIPE_CREDIT_PRICES ?? [],
  };
}

/** The process's door: WEBHOOK_PORT on every interface, unless it is `off`. */
export function directDoorFromEnv(env: WebhookIngestServiceEnv): DirectDoorConfig | undefined {
  if (env.WEBHOOK_PORT === 'off') return undefined;
  return { port: env.WEBHOOK_PORT, host: '0.0.0.0', trustProxyHops: env.TRUST_PROXY_HOPS };
}

export function loadConfig(env: NodeJS.ProcessEnv): WebhookIngestServiceEnv {
  return parseConfig(WebhookIngestServiceEnv, env);
}
