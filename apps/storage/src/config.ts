import { z } from 'zod';
import { parseConfig, type ActorRateLimits } from '@wap/http';
import { ServiceEnv } from '@wap/service-runtime';

/** The storage service's own settings, shared by its process and the embedded launcher. */
export const StorageSettings = z.object({
  /** Task attachments one person may upload a minute (429 past it; decision 124). */
  UPLOADS_PER_MINUTE_PER_USER: z.coerce.number().int().positive().default(30),
  /** Task attachments a workspace's people may upload a minute, together. */
  UPLOADS_PER_MINUTE_PER_WORKSPACE: z.coerce.number().int().positive().default(300),
});
export type StorageSettings = z.infer<typeof StorageSettings>;

/** The storage process environment: the common service variables and its own. */
export const StorageEnv = ServiceEnv.extend(StorageSettings.shape);
export type StorageEnv = z.infer<typeof StorageEnv>;

export function uploadLimitsOf(settings: StorageSettings): ActorRateLimits {
  return {
    perUserPerMinute: settings.UPLOADS_PER_MINUTE_PER_USER,
    perWorkspacePerMinute: settings.UPLOADS_PER_MINUTE_PER_WORKSPACE,
  };
}

export const DEFAULT_UPLOAD_LIMITS = uploadLimitsOf(StorageSettings.parse({}));

export function loadConfig(env: NodeJS.ProcessEnv): StorageEnv {
  return parseConfig(StorageEnv, env);
}
