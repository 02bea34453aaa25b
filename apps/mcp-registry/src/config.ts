import { parseConfig } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The mcp-registry service's environment: the common service variables for now. */
export const McpRegistryServiceEnv = ServiceEnv;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return parseConfig(McpRegistryServiceEnv, env);
}
