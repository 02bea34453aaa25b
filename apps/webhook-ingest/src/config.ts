import { parseConfig } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The webhook-ingest service's environment: the common service variables for now. */
export const WebhookIngestServiceEnv = ServiceEnv;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return parseConfig(WebhookIngestServiceEnv, env);
}
