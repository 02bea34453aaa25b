import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ServiceName } from '@wap/contracts';
import type { Platform } from '@wap/platform';
import { busKeysOf, withBusKeys, type ServiceHandle } from '@wap/service-runtime';
import type { BusKeySet, ExtensionTokenIssuer } from '@wap/auth';
import { startChatService, type ChatSettings } from '@wap/chat-service';
import { generateCredentialKey, parseCredentialKeys } from '@wap/auth';
import { parseAllowlist } from '@wap/egress';
import type { ActorRateLimits } from '@wap/http';
import {
  oauthRedirectUriFor,
  startMcpRegistryService,
  type McpRegistryConfig,
} from '@wap/mcp-registry-service';
import { startStorageService } from '@wap/storage-service';
import {
  DEFAULT_WEBHOOK_INGEST_CONFIG,
  startWebhookIngestService,
  type WebhookIngestConfig,
} from '@wap/webhook-ingest-service';
import {
  startWorkflowRunnerService,
  type WorkflowRunnerSettings,
} from '@wap/workflow-runner-service';

/** Where each service's migrations are, from source (tsx) and from the bundle alike. */
function migrationsOf(service: string): string {
  return join(__dirname, '../..', service, 'migrations');
}

/** Settings a launcher or a test may give individual services; each has its defaults. */
export interface ServiceOptions {
  /**
   * mcp-registry's settings and the environment its env_var auth reads. The launcher always
   * passes them (with a key kept in DATA_DIR); without them (tests) a throw-away key is used.
   * workflow-runner seals with the same keys.
   */
  mcpRegistry?: {
    config: McpRegistryConfig;
    environment: Readonly<Record<string, string | undefined>>;
  };
  /** workflow-runner's settings (PUBLIC_BASE_URL, SSRF_ALLOWLIST, ...); defaults for any left out. */
  workflowRunner?: Partial<WorkflowRunnerSettings>;
  /** webhook-ingest's settings; its `publicBaseUrl` and the runner's PUBLIC_BASE_URL are one. */
  webhookIngest?: WebhookIngestConfig;
  /** The chat service's settings (the model provider, limits, turn leases); defaults for the rest. */
  chat?: Partial<ChatSettings>;
  /** storage's settings; tests shrink the split-name batch to cross batch boundaries. */
  storage?: {
    splitBatchSize?: number;
    uploadLimits?: ActorRateLimits;
    extensionTokenIssuer?: ExtensionTokenIssuer;
  };
}

/** For tests that do not care about mcp-registry: a fresh key, no allow-lists, nothing to read. */
function throwAwayMcpRegistrySettings(): NonNullable<ServiceOptions['mcpRegistry']> {
  return {
    config: {
      keyring: parseCredentialKeys(generateCredentialKey('test')),
      egressAllowlist: parseAllowlist(''),
      envAllowlist: new Set(),
      extraCaCerts: [],
      connectTimeoutMs: 10_000,
      syncTimeoutMs: 60_000,
      callTimeoutMs: 60_000,
      oauthRedirectUri: oauthRedirectUriFor('http://localhost:3000'),
    },
    environment: {},
  };
}

/**
 * One origin for the webhook addresses, whichever service it was given to: the address a workflow
 * is created with is the one the address describes itself with. Two different ones are refused.
 */
export function webhookOrigin(
  options: Pick<ServiceOptions, 'workflowRunner' | 'webhookIngest'>,
): string | undefined {
  const runnerOrigin = options.workflowRunner?.PUBLIC_BASE_URL;
  const ingestOrigin = options.webhookIngest?.publicBaseUrl;
  if (runnerOrigin && ingestOrigin && runnerOrigin !== ingestOrigin) {
    throw new Error(
      `workflow-runner's PUBLIC_BASE_URL (${runnerOrigin}) and webhook-ingest's (${ingestOrigin}) differ: webhook addresses need one origin`,
    );
  }
  return runnerOrigin ?? ingestOrigin;
}

/** The started services; `webhookUrl` is webhook-ingest's direct door, when it was given one. */
export interface RunningServices extends ServiceHandle {
  webhookUrl?: string;
}

/**
 * Starts every service (not the gateway) on one platform, each behind the bus trust layer with
 * its own key of `busKeys`; stop() stops them in reverse.
 */
export async function startAllServices(
  shared: Platform,
  busKeys: BusKeySet,
  serviceLogger: (service: string) => Logger,
  options: ServiceOptions = {},
): Promise<RunningServices> {
  const platformOf = (service: ServiceName) =>
    withBusKeys(shared, service, busKeysOf(busKeys, service), serviceLogger(service));
  const publicBaseUrl = webhookOrigin(options);
  const workflowRunner = publicBaseUrl
    ? { ...options.workflowRunner, PUBLIC_BASE_URL: publicBaseUrl }
    : options.workflowRunner;
  const webhookIngest = publicBaseUrl
    ? { ...(options.webhookIngest ?? DEFAULT_WEBHOOK_INGEST_CONFIG), publicBaseUrl }
    : options.webhookIngest;
  const mcpRegistry = options.mcpRegistry ?? throwAwayMcpRegistrySettings();
  const services: ServiceHandle[] = [
    await startStorageService({
      platform: await platformOf('storage'),
      logger: serviceLogger('storage'),
      migrationsFolder: migrationsOf('storage'),
      ...options.storage,
    }),
    await startWorkflowRunnerService({
      platform: await platformOf('workflow-runner'),
      logger: serviceLogger('workflow-runner'),
      migrationsFolder: migrationsOf('workflow-runner'),
      settings: workflowRunner,
      // One key list seals every stored secret, rotated by one command (decision 151).
      keyring: mcpRegistry.config.keyring,
    }),
    await startChatService({
      platform: await platformOf('chat'),
      logger: serviceLogger('chat'),
      migrationsFolder: migrationsOf('chat'),
      settings: options.chat,
    }),
    await startMcpRegistryService({
      platform: await platformOf('mcp-registry'),
      logger: serviceLogger('mcp-registry'),
      migrationsFolder: migrationsOf('mcp-registry'),
      ...mcpRegistry,
    }),
  ];
  const ingest = await startWebhookIngestService({
    platform: await platformOf('webhook-ingest'),
    logger: serviceLogger('webhook-ingest'),
    config: webhookIngest,
  });
  services.push(ingest);
  return {
    webhookUrl: ingest.webhookUrl,
    stop: async () => {
      for (const service of services.reverse()) await service.stop();
    },
  };
}
