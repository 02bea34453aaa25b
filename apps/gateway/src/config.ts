import { resolve } from 'node:path';
import { z } from 'zod';
import { metricsAccessOf, type MetricsAccess } from '@wap/http';
import { parseConfig } from '@wap/config';
import { findBuiltWebApp } from './web/built-web-app';

/** What the HTTP edge reads from the environment, whichever runtime hosts it. */
export const GatewayHttpEnv = z.object({
  /** development, test or production; production refuses dev sign-in and secret-signed sessions. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** HTTP port of the gateway. */
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** Interface to listen on. */
  HOST: z.string().default('0.0.0.0'),
  /**
   * `on` mounts the development sign-in (`/dev/sign-in`: any email, no password) and lets
   * `dev:session` mint cookies; never set by compose or the Kubernetes overlays (decision 117).
   */
  DEV_SIGN_IN: z.enum(['on', 'off']).default('off'),
  /** HS256 secret for session cookies (development only). */
  SESSION_JWT_SECRET: z.string().min(32).optional(),
  /** JWKS URL of the identity provider that signs session cookies. */
  SESSION_JWKS_URL: z.url().optional(),
  /** Expected `iss` of session tokens. */
  SESSION_ISSUER: z.string().optional(),
  /** Expected `aud` of session tokens. */
  SESSION_AUDIENCE: z.string().optional(),
  /** Browser origin allowed to call the API with credentials (CORS), e.g. https://app.example.com. */
  WEB_ORIGIN: z.url().optional(),
  /** How long the gateway waits for a service to answer before 503, in ms. */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  /** Largest JSON body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(1_048_576),
  /** Trust X-Forwarded-* from this many proxy hops (Kubernetes ingress: 1). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).default(0),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** OTLP/HTTP endpoint for traces; unset means no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  /**
   * The origin people reach the platform at: session cookies are Secure unless it is plain
   * http, and unsafe requests must come from it (or WEB_ORIGIN). Unset: Secure cookies.
   */
  PUBLIC_BASE_URL: z.url().optional(),
  /**
   * Folder of the built web app (index.html and assets/) served at `/` and `/app/*`; unset:
   * the repository's `dist/apps/web` when it has been built, else `/` answers a JSON description.
   */
  WEB_DIST_DIR: z.string().min(1).optional(),
  /**
   * Bearer token a scraper must present at `GET /metrics`; unset: /metrics is open in
   * development and not served in production (decision 93).
   */
  METRICS_TOKEN: z.string().min(16).optional(),
});
export type GatewayHttpEnv = z.infer<typeof GatewayHttpEnv>;

/** The gateway process's environment (distributed runtime), parsed once in main.ts. */
export const GatewayEnv = GatewayHttpEnv.extend({
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /**
   * The gateway's private Ed25519 JWK (kid `gateway:<version>`): it signs who is asking on every
   * request it forwards, and no other process holds it (decision 112).
   */
  BUS_SIGNING_KEY: z.string().min(1),
  /** The JWKS of every bus principal's public key. */
  BUS_TRUSTED_KEYS: z.string().min(1),
  /** The gateway's NATS NKey seed (`SU...`); unset for an open server (decision 113). */
  NATS_NKEY_SEED: z.string().startsWith('SU').optional(),
  /** A CA certificate (PEM file) to verify the NATS servers' TLS certificates. */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /**
   * Copies JetStream keeps of each stream and bucket this process creates: 3 on a production
   * cluster (a node's loss loses nothing acknowledged), 1 on a single server.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** Prefix for every subject, shared with the services of the same deployment. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]{1,32}$/)
    .optional(),
}).superRefine((env, ctx) => {
  const jwks = env.SESSION_JWKS_URL !== undefined;
  if (jwks && (!env.SESSION_ISSUER || !env.SESSION_AUDIENCE)) {
    ctx.addIssue({
      code: 'custom',
      path: ['SESSION_JWKS_URL'],
      message: 'SESSION_JWKS_URL needs SESSION_ISSUER and SESSION_AUDIENCE',
    });
  }
  if (!jwks && !env.SESSION_JWT_SECRET) {
    ctx.addIssue({
      code: 'custom',
      path: ['SESSION_JWT_SECRET'],
      message:
        'set SESSION_JWKS_URL (with issuer and audience) or, in development, SESSION_JWT_SECRET',
    });
  }
  if (env.NODE_ENV === 'production' && !jwks) {
    ctx.addIssue({
      code: 'custom',
      path: ['SESSION_JWKS_URL'],
      message: 'production verifies sessions against SESSION_JWKS_URL',
    });
  }
});
export type GatewayEnv = z.infer<typeof GatewayEnv>;

/** What the gateway's HTTP edge needs, whichever runtime hosts it. */
export interface GatewayConfig {
  production: boolean;
  port: number;
  host: string;
  session:
    | { mode: 'jwks'; jwksUrl: string; issuer: string; audience: string }
    | { mode: 'secret'; secret: string; issuer?: string; audience?: string };
  webOrigin?: string;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
  trustProxyHops: number;
  sessionCookieSecure: boolean;
  /** Whether `/dev/sign-in` is mounted (DEV_SIGN_IN=on, secret-signed sessions only). */
  devSignIn: boolean;
  /** The origin of PUBLIC_BASE_URL: a page there may send unsafe requests with the cookie. */
  publicOrigin?: string;
  /** Absolute folder of the built web app to serve; undefined: no web app, `/` answers JSON. */
  webDistDir?: string;
  /** Who may read `GET /metrics` (decision 93); unset: open unless `production`, then nobody. */
  metricsAccess?: MetricsAccess;
}

export function loadGatewayEnv(env: NodeJS.ProcessEnv): GatewayEnv {
  return parseConfig(GatewayEnv, env);
}

/**
 * The gateway's configuration; throws for a combination that would open sign-in where it must
 * not be: secret-signed sessions or the development sign-in under NODE_ENV=production, on any
 * runtime, and the development sign-in beside an identity provider.
 */
export function gatewayConfigFromEnv(env: GatewayHttpEnv): GatewayConfig {
  const session: GatewayConfig['session'] =
    env.SESSION_JWKS_URL && env.SESSION_ISSUER && env.SESSION_AUDIENCE
      ? {
          mode: 'jwks',
          jwksUrl: env.SESSION_JWKS_URL,
          issuer: env.SESSION_ISSUER,
          audience: env.SESSION_AUDIENCE,
        }
      : {
          mode: 'secret',
          secret: env.SESSION_JWT_SECRET ?? '',
          issuer: env.SESSION_ISSUER,
          audience: env.SESSION_AUDIENCE,
        };
  const production = env.NODE_ENV === 'production';
  if (production && session.mode === 'secret') {
    throw new Error('NODE_ENV=production verifies sessions against SESSION_JWKS_URL only');
  }
  const devSignIn = env.DEV_SIGN_IN === 'on';
  if (devSignIn && production)
    throw new Error('DEV_SIGN_IN=on is refused when NODE_ENV=production');
  if (devSignIn && session.mode !== 'secret') {
    throw new Error('DEV_SIGN_IN=on needs SESSION_JWT_SECRET sessions, not SESSION_JWKS_URL');
  }
  const publicUrl = env.PUBLIC_BASE_URL ? new URL(env.PUBLIC_BASE_URL) : undefined;
  return {
    production,
    port: env.PORT,
    host: env.HOST,
    session,
    webOrigin: env.WEB_ORIGIN,
    requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    trustProxyHops: env.TRUST_PROXY_HOPS,
    sessionCookieSecure: publicUrl?.protocol !== 'http:',
    devSignIn,
    publicOrigin: publicUrl?.origin,
    webDistDir: env.WEB_DIST_DIR ? resolve(env.WEB_DIST_DIR) : findBuiltWebApp(),
    metricsAccess: metricsAccessOf({ token: env.METRICS_TOKEN, production }),
  };
}
