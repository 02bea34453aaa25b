import type { Logger } from 'pino';
import type { Platform } from '@wap/platform';
import type { ServiceHandle } from '@wap/service-runtime';

/**
 * Composes the mcp-registry service on a platform. Its capabilities — MCP server registration, tool sync and the platform's MCP server (issue #4) — are
 * built in their own issues; until then the process runs, reports health and drains like every
 * other service, so deployments and the embedded runtime already carry it.
 */
export async function startMcpRegistryService(deps: {
  platform: Platform;
  logger: Logger;
}): Promise<ServiceHandle> {
  deps.logger.info({ runtime: deps.platform.runtime }, 'mcp-registry service started');
  return { stop: async () => undefined };
}
