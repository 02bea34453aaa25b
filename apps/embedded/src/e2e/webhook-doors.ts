import {
  DEFAULT_WEBHOOK_INGEST_CONFIG,
  type WebhookIngestConfig,
} from '@wap/webhook-ingest-service';
import type { Runtime, TestStack } from './stack';

/** How a webhook request reaches webhook-ingest: forwarded by the gateway, or straight in. */
export type WebhookDoor = 'gateway' | 'direct';

/**
 * Where the webhook specs send their requests: the gateway on both runtimes, and webhook-ingest's
 * own HTTP door on the distributed runtime, where production has it (decision 90). One handler
 * behind two doors: the same tests hold through each.
 */
export const WEBHOOK_DOORS: ReadonlyArray<readonly [Runtime, WebhookDoor]> = [
  ['embedded', 'gateway'],
  ['distributed', 'gateway'],
  ['distributed', 'direct'],
];

/** webhook-ingest's settings, with its direct door on a free port when the tests use it. */
export function withDoor(
  door: WebhookDoor,
  config: WebhookIngestConfig = DEFAULT_WEBHOOK_INGEST_CONFIG,
): WebhookIngestConfig {
  if (door === 'gateway') return config;
  return { ...config, direct: { port: 0, host: '127.0.0.1', trustProxyHops: 0 } };
}

/** The origin webhook requests go to through `door`. */
export function doorUrl(stack: TestStack, door: WebhookDoor): string {
  if (door === 'gateway') return stack.url;
  if (!stack.services.webhookUrl) throw new Error('webhook-ingest was started without its door');
  return stack.services.webhookUrl;
}
