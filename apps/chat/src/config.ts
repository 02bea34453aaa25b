import { parseConfig } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The chat service's environment: the common service variables for now. */
export const ChatServiceEnv = ServiceEnv;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return parseConfig(ChatServiceEnv, env);
}
