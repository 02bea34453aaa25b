import { z } from 'zod';
import type { ExtensionTokenIssuer } from '@wap/auth';
import { type ActorRateLimits } from '@wap/http';
import { parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/** The storage service's own settings, shared by its process and the embedded launcher. */
export const StorageSettings = z.object({
  /** Task attachments one person may upload a minute (429 past it; decision 124). */
  UPLOADS_PER_MINUTE_PER_USER: z.coerce.number().int().positive().default(30),
  /** Task attachments a workspace's people may upload a minute, together. */
  UPLOADS_PER_MINUTE_PER_WORKSPACE: z.coerce.number().int().positive().default(300),
  /**
   * Signs the browser extension's bearer tokens (decision 128); without it none are issued.
   * Only storage holds it: the gateway asks storage to verify a presented token.
   */
  EXTENSION_TOKEN_SECRET: z.string().min(32).optional(),
  /** The spec's `<issuer_name>` of extension tokens: `iss`, and `<issuer>-extension` as `aud`. */
  EXTENSION_TOKEN_ISSUER: z.string().min(1).default('workspace-assistant'),
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

export function extensionTokenIssuerOf(
  settings: StorageSettings,
): ExtensionTokenIssuer | undefined {
  return settings.EXTENSION_TOKEN_SECRET
    ? { secret: settings.EXTENSION_TOKEN_SECRET, issuer: settings.EXTENSION_TOKEN_ISSUER }
    : undefined;
}

export const DEFAULT_UPLOAD_LIMITS = uploadLimitsOf(StorageSettings.parse({}));

export function loadConfig(env: NodeJS.ProcessEnv): StorageEnv {
  return parseConfig(StorageEnv, env);
}
