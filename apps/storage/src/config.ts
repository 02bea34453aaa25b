import { parseConfig } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The storage service's environment: the common service variables for now. */
export const StorageEnv = ServiceEnv;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return parseConfig(StorageEnv, env);
}
