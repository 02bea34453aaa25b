import { z } from 'zod';
import { envBoolean, parseConfig } from '@wap/http';

/** The embedded runtime's environment: every service in one process, state under DATA_DIR. */
export const EmbeddedEnv = z.object({
  /** development, test or production; production refuses dev sign-in. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** HTTP port of the gateway. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to listen on. */
  HOST: z.string().default('0.0.0.0'),
  /** Where the embedded runtime keeps everything: database, streams, KV, blobs, generated secrets. */
  DATA_DIR: z.string().default('./data'),
  /** HS256 secret for session cookies; generated into DATA_DIR on first start when unset. */
  SESSION_JWT_SECRET: z.string().min(32).optional(),
  /** JWKS URL of the identity provider that signs session cookies (instead of a secret). */
  SESSION_JWKS_URL: z.url().optional(),
  /** Expected `iss` of session tokens. */
  SESSION_ISSUER: z.string().optional(),
  /** Expected `aud` of session tokens. */
  SESSION_AUDIENCE: z.string().optional(),
  /** Browser origin allowed to call the API with credentials (CORS). */
  WEB_ORIGIN: z.url().optional(),
  /** How long the gateway waits for a service to answer before 503, in ms. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Largest JSON body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /** Trust X-Forwarded-* from this many proxy hops. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** OTLP/HTTP endpoint for traces; unset means no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /** Adds a Secure attribute to the dev sign-in cookie. */
  SESSION_COOKIE_SECURE: envBoolean(true),
});
export type EmbeddedEnv = z.infer<typeof EmbeddedEnv>;

export function loadEmbeddedEnv(env: NodeJS.ProcessEnv): EmbeddedEnv {
  return parseConfig(EmbeddedEnv, env);
}
