import { parseConfig } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The workflow runner's environment: the common service variables for now. */
export const WorkflowRunnerEnv = ServiceEnv;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return parseConfig(WorkflowRunnerEnv, env);
}
