import { AppError, type RawServiceRequest, type ServiceReply } from '@wap/contracts';
import { metrics } from '@wap/observability';

/** Which endpoint a webhook request came to: the Custom Webhook or a signed provider's. */
export type WebhookEntry = 'custom' | 'stripe' | 'github' | 'linear' | 'slack';

/**
 * What became of a request: `accepted` (stored; reason `ok`, or `inactive` for a draft's test
 * event), `skipped` (stored as a test event, no run: `duplicate`, `outside_running_hours`) or
 * `refused` (nothing stored; reason the Error code, or `https_redirect`).
 */
export interface Delivery {
  reply: ServiceReply;
  outcome: 'accepted' | 'skipped' | 'refused';
  reason: string;
}

export type RawRouteHandler = (request: RawServiceRequest) => Promise<ServiceReply>;

/** The reason a failed request is counted under: its Error code, as its body says. */
export function refusalReason(error: unknown): string {
  return error instanceof AppError ? error.code : 'INTERNAL_ERROR';
}

export function countRefusal(entry: WebhookEntry, reason: string): void {
  metrics.webhookRequests.inc({ entry, outcome: 'refused', reason });
}

/**
 * The handler both doors call: it counts each request once, whichever door it came through
 * (the bus from the gateway, or webhook-ingest's own HTTP port).
 */
export function countDeliveries(
  entry: WebhookEntry,
  handle: (request: RawServiceRequest) => Promise<Delivery>,
): RawRouteHandler {
  return async (request) => {
    let delivery: Delivery;
    try {
      delivery = await handle(request);
    } catch (error) {
      countRefusal(entry, refusalReason(error));
      throw error;
    }
    metrics.webhookRequests.inc({ entry, outcome: delivery.outcome, reason: delivery.reason });
    return delivery.reply;
  };
}

/** A provider's answer: anything it answers rather than throws is an accepted delivery. */
export function acceptedProviderDelivery(
  entry: WebhookEntry,
  handle: RawRouteHandler,
): RawRouteHandler {
  return countDeliveries(entry, async (request) => ({
    reply: await handle(request),
    outcome: 'accepted',
    reason: 'ok',
  }));
}
