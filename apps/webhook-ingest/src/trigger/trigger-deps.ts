import type { Logger } from 'pino';
import type { CreditSnapshot, WebhookAddress, WebhookReceived } from '@wap/contracts';
import type { KvMirror, Platform } from '@wap/platform';
import type { RateLimiter } from '@wap/http';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { WebhookIngestConfig } from '../config';
import type { DuplicateClaims } from './duplicate-claims';

/** The provider delivery a request to an address carries, when it came from a signed endpoint. */
export type DeliverySource = NonNullable<WebhookReceived['source']>;

export interface TriggerDeps {
  platform: Pick<Platform, 'streams' | 'objects' | 'clock' | 'ids'>;
  addresses: KvMirror<WebhookAddress>;
  credits: KvMirror<CreditSnapshot>;
  directory: DirectoryClient;
  claims: DuplicateClaims;
  rateLimiter: RateLimiter;
  config: WebhookIngestConfig;
  logger: Logger;
}
