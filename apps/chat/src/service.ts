import type { Logger } from 'pino';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';

/**
 * Composes the chat service on a platform. Its capabilities — chats, turns and the assistant (spec endpoints 1 and 6) — are
 * built in their own issues; until then the process runs, reports health and drains like every
 * other service, so deployments and the embedded runtime already carry it.
 */
export async function startChatService(deps: {
  platform: Platform;
  logger: Logger;
}): Promise<ServiceHandle> {
  deps.logger.info({ runtime: deps.platform.runtime }, 'chat service started');
  return { stop: async () => undefined };
}
