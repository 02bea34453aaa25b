import { z } from 'zod';
import { parseConfig } from '@wap/config';
import { ServiceEnv } from '@wap/service-runtime';

/**
 * The admin CLI's environment: the deployment's NATS as the services see it (it reaches the
 * data through the services that own it, so it needs no DATABASE_URL), and the session secret.
 */
export const AdminEnv = ServiceEnv.pick({
  NODE_ENV: true,
  NATS_URL: true,
  NATS_NAMESPACE: true,
}).extend({
  /**
   * The operators' private Ed25519 JWK (kid `operator:<version>`): every command that asks a
   * service signs with it (decision 112). Not needed by `session` and `help`.
   */
  BUS_SIGNING_KEY: z.string().min(1).optional(),
  /** The JWKS of every bus principal's public key (BUS_TRUSTED_KEYS of the services). */
  BUS_TRUSTED_KEYS: z.string().min(1).optional(),
  /** The operators' NATS NKey seed (`SU...`); unset for an open server (decision 113). */
  NATS_NKEY_SEED: z.string().startsWith('SU').optional(),
  /** A CA certificate (PEM file) to verify the NATS servers' TLS certificates. */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /** How long to wait for a service's answer, in milliseconds. */
  ADMIN_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** pino level of the CLI's own diagnostics (written to stderr). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
  /** `on` where the gateway has the development sign-in: `session` is refused otherwise. */
  DEV_SIGN_IN: z.enum(['on', 'off']).default('off'),
  /** The platform's public address, which `sign-in-link` links to. */
  PUBLIC_BASE_URL: z.url().default('http://localhost:3000'),
  /** HS256 secret the gateway verifies development sessions with (`session`, `sign-in-link`). */
  SESSION_JWT_SECRET: z.string().min(32).optional(),
  /** An embedded runtime's data folder, whose generated session secret `session` falls back to. */
  DATA_DIR: z.string().min(1).default('./data'),
});
export type AdminEnv = z.infer<typeof AdminEnv>;

export function loadConfig(env: NodeJS.ProcessEnv): AdminEnv {
  return parseConfig(AdminEnv, env);
}
