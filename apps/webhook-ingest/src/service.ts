import type { Logger } from 'pino';
import {
  CREDIT_BALANCES_BUCKET,
  CreditSnapshot,
  FINAL_RUN_STATUSES,
  ROUTES,
  WEBHOOKS_BUCKET,
  WEBHOOK_INFLIGHT_BUCKET,
  WEBHOOK_INFLIGHT_BUCKET_OPTIONS,
  REQUEST_BODIES_BUCKET,
  REQUEST_BODIES_BUCKET_OPTIONS,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET_OPTIONS,
  WebhookAddress,
  WEBHOOK_EVENTS_STREAM_CONFIG,
  BUS_APIS,
} from '@wap/contracts';
import { createRateLimiter } from '@wap/http';
import { createKvMirror, type Platform } from '@wap/platform';
import { callApi, serveRoutes } from '@wap/bus-protocol';
import type { ServiceHandle } from '@wap/service-runtime';
import { createDirectoryClient } from '@wap/workspace-directory';
import { DEFAULT_WEBHOOK_INGEST_CONFIG, type WebhookIngestConfig } from './config';
import { acceptedProviderDelivery, countDeliveries } from './http/deliveries';
import { startDirectDoor, type DirectDoor } from './http/direct-door';
import { createProviderHandlers } from './providers/provider-handlers';
import {
  IDEMPOTENCY_BUCKET,
  createDuplicateClaims,
  type EventRunState,
} from './trigger/duplicate-claims';
import { startReplicaLiveness } from './trigger/replica-liveness';
import { createTriggerHandlers } from './trigger/trigger-handler';

/** Addresses whose rate-limit state one replica keeps at most. */
const RATE_LIMITED_ADDRESSES = 100_000;
/** A claim not stored within this long belongs to a replica that died; a retry may take it over. */
const CLAIM_LEASE_MS = 30_000;
/** How long a request waits for workflow-runner to say whether an old claim's event has a run. */
const RUN_OF_EVENT_TIMEOUT_MS = 2_000;
/**
 * Each replica renews its liveness key this often; a key not renewed for the TTL is gone, and
 * the claims of its replica are taken over (decision 91). The margin covers a busy event loop.
 */
const HEARTBEAT_MS = 1_000;
const LIVENESS_TTL_MS = 5_000;
/** A replica that does not answer its liveness subject within this is slow, not dead. */
const LIVENESS_PROBE_TIMEOUT_MS = 1_000;

/** A started webhook-ingest: `webhookUrl` is its direct HTTP door, when it has one. */
export interface WebhookIngestHandle extends ServiceHandle {
  webhookUrl?: string;
}

/** Where the run an old claim's event started is, as workflow-runner tells; undefined when it cannot. */
function askRunOfEvent(platform: Platform, logger: Logger) {
  return async (eventId: string): Promise<EventRunState | undefined> => {
    try {
      const { run } = await callApi(
        platform.bus,
        BUS_APIS.runOfEvent,
        { eventId },
        { timeoutMs: RUN_OF_EVENT_TIMEOUT_MS },
      );
      if (!run) return 'none';
      return FINAL_RUN_STATUSES.includes(run.status) ? 'ended' : 'active';
    } catch (error) {
      logger.warn({ err: error, eventId }, 'could not ask workflow-runner for the run of an event');
      return undefined;
    }
  };
}

/** This replica's liveness key and the duplicate claims that use it to take over dead ones'. */
async function startDuplicateClaims(
  platform: Platform,
  config: WebhookIngestConfig,
  logger: Logger,
  nowMs: () => number,
) {
  const liveness = await startReplicaLiveness({
    kv: platform.kv,
    bus: platform.bus,
    id: platform.ids.uuid(),
    heartbeatMs: HEARTBEAT_MS,
    ttlMs: LIVENESS_TTL_MS,
    probeTimeoutMs: LIVENESS_PROBE_TIMEOUT_MS,
    nowMs,
    logger,
  });
  const idempotency = await platform.kv.bucket(IDEMPOTENCY_BUCKET, {
    ttlMs: config.idempotencyWindowMs,
  });
  const claims = createDuplicateClaims({
    replica: liveness,
    idempotency,
    inflight: await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET, WEBHOOK_INFLIGHT_BUCKET_OPTIONS),
    nowMs,
    leaseMs: CLAIM_LEASE_MS,
    waitForFirstMs: 5_000,
    pollMs: 5,
    inflightAbandonMs: config.inflightAbandonMs,
    runOfEvent: askRunOfEvent(platform, logger),
  });
  return { liveness, claims, idempotency };
}

/** One handler per route, behind both doors: the gateway's bus request and the direct door. */
function routeHandlers(
  trigger: ReturnType<typeof createTriggerHandlers>,
  providers: ReturnType<typeof createProviderHandlers>,
) {
  return {
    stripe_webhook: acceptedProviderDelivery('stripe', providers.stripe),
    github_webhook: acceptedProviderDelivery('github', providers.github),
    linear_webhook: acceptedProviderDelivery('linear', providers.linear),
    slack_events: acceptedProviderDelivery('slack', providers.slackEvents),
    trigger_webhook: countDeliveries('custom', trigger.trigger),
    describe_webhook: trigger.describe,
  };
}

/** The direct door's routes: each handler with the delivery counter it reports under. */
function directRoutes(handlers: ReturnType<typeof routeHandlers>) {
  const entries = {
    stripe_webhook: 'stripe',
    github_webhook: 'github',
    linear_webhook: 'linear',
    slack_events: 'slack',
    trigger_webhook: 'custom',
    describe_webhook: undefined,
  } as const;
  return ROUTES.filter((route) => route.owner === 'webhook-ingest').map((route) => ({
    route,
    handler: handlers[route.operationId],
    entry: entries[route.operationId],
  }));
}

/**
 * Composes webhook-ingest: the Custom Webhook trigger (endpoint 11) and the signed provider
 * webhooks. It keeps nothing in SQL: addresses and credit balances are local mirrors of the
 * KV buckets workflow-runner publishes, duplicate claims live in KV, requests go to streams.
 */
export async function startWebhookIngestService(deps: {
  platform: Platform;
  logger: Logger;
  config?: WebhookIngestConfig;
}): Promise<WebhookIngestHandle> {
  const { platform, logger } = deps;
  const config = deps.config ?? DEFAULT_WEBHOOK_INGEST_CONFIG;
  await platform.streams.ensureStream(WEBHOOK_EVENTS_STREAM_CONFIG);
  await platform.objects.ensureBucket(WEBHOOK_PAYLOADS_BUCKET, WEBHOOK_PAYLOADS_BUCKET_OPTIONS);
  await platform.objects.ensureBucket(REQUEST_BODIES_BUCKET, REQUEST_BODIES_BUCKET_OPTIONS);
  const directory = await createDirectoryClient({ kv: platform.kv, logger });
  const addresses = await createKvMirror({
    kv: platform.kv,
    bucket: WEBHOOKS_BUCKET,
    schema: WebhookAddress,
    logger,
  });
  const credits = await createKvMirror({
    kv: platform.kv,
    bucket: CREDIT_BALANCES_BUCKET,
    schema: CreditSnapshot,
    logger,
  });
  const nowMs = () => platform.clock.now().getTime();
  const { liveness, claims, idempotency } = await startDuplicateClaims(
    platform,
    config,
    logger,
    nowMs,
  );
  const trigger = createTriggerHandlers({
    platform,
    addresses,
    credits,
    directory,
    claims,
    rateLimiter: createRateLimiter({
      ...config.rateLimit,
      maxAddresses: RATE_LIMITED_ADDRESSES,
      nowMs,
    }),
    config,
    logger,
  });
  const providers = createProviderHandlers({
    platform,
    config,
    logger,
    grantTimeoutMs: 10_000,
    deliverProviderEvent: trigger.deliverProviderEvent,
    receivedBodies: idempotency,
  });
  const handlers = routeHandlers(trigger, providers);
  const subscriptions = serveRoutes(platform.bus, ROUTES, 'webhook-ingest', handlers, {
    queue: 'webhook-ingest',
    logger,
    objects: platform.objects,
  });
  let door: DirectDoor | undefined;
  if (config.direct) {
    door = await startDirectDoor({ routes: directRoutes(handlers), config: config.direct, logger });
  }
  logger.info({ runtime: platform.runtime }, 'webhook-ingest service started');
  return {
    webhookUrl: door?.url,
    stop: async () => {
      await Promise.all([
        door?.close(),
        ...subscriptions.map((subscription) => subscription.unsubscribe()),
      ]);
      await liveness.stop();
      await Promise.all([addresses.stop(), credits.stop(), directory.stop()]);
    },
  };
}

export {
  DEFAULT_WEBHOOK_INGEST_CONFIG,
  WEBHOOK_SECRET_KEYS,
  WebhookIngestEnv,
  WebhookIngestServiceEnv,
  webhookIngestConfigFromEnv,
  type WebhookIngestConfig,
} from './config';
/** The `webhook-inflight` key of a request without an idempotency header (decision 40). */
export { fingerprintKey, idempotencyKey } from './trigger/request-identity';
/** Where claims and replica liveness are kept, for tests that play a replica that died. */
export { IDEMPOTENCY_BUCKET } from './trigger/duplicate-claims';
export { REPLICAS_BUCKET } from '@wap/contracts';
