import type { Logger } from 'pino';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';

/**
 * Composes the webhook-ingest service on a platform. Its capabilities — the Custom Webhook trigger and signed provider webhooks (issue #3) — are
 * built in their own issues; until then the process runs, reports health and drains like every
 * other service, so deployments and the embedded runtime already carry it.
 */
export async function startWebhookIngestService(deps: {
  platform: Platform;
  logger: Logger;
}): Promise<ServiceHandle> {
  deps.logger.info({ runtime: deps.platform.runtime }, 'webhook-ingest service started');
  return { stop: async () => undefined };
}
