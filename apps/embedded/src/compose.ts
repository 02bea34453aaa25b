import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';
import { startChatService } from '@wap/chat-service';
import { startMcpRegistryService } from '@wap/mcp-registry-service';
import { startStorageService } from '@wap/storage-service';
import { startWebhookIngestService } from '@wap/webhook-ingest-service';
import { startWorkflowRunnerService } from '@wap/workflow-runner-service';

/** Where each service's migrations are, from source (tsx) and from the bundle alike. */
function migrationsOf(service: string): string {
  return join(__dirname, '../..', service, 'migrations');
}

/** Starts every service (not the gateway) on one platform; stop() stops them in reverse. */
export async function startAllServices(
  platform: Platform,
  serviceLogger: (service: string) => Logger,
): Promise<ServiceHandle> {
  const services: ServiceHandle[] = [
    await startStorageService({
      platform,
      logger: serviceLogger('storage'),
      migrationsFolder: migrationsOf('storage'),
    }),
    await startWorkflowRunnerService({
      platform,
      logger: serviceLogger('workflow-runner'),
      migrationsFolder: migrationsOf('workflow-runner'),
    }),
    await startChatService({ platform, logger: serviceLogger('chat') }),
    await startMcpRegistryService({ platform, logger: serviceLogger('mcp-registry') }),
    await startWebhookIngestService({ platform, logger: serviceLogger('webhook-ingest') }),
  ];
  return {
    stop: async () => {
      for (const service of services.reverse()) await service.stop();
    },
  };
}
