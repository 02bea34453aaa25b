import { z } from 'zod';

/** Environment every service process reads in the distributed runtime. */
export const ServiceEnv = z.object({
  /** development, test or production. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /**
   * This service's NATS NKey seed (`SU...`): with it the connection authenticates as the
   * service's own NATS user, whose permissions the server configuration derives from the
   * subject registry (`npm run bus:credentials`, decision 113). Unset: an open server.
   */
  NATS_NKEY_SEED: z.string().startsWith('SU').optional(),
  /**
   * Copies JetStream keeps of each stream and bucket this process creates: 3 on a production
   * cluster (a node's loss loses nothing acknowledged), 1 on a single server.
   */
  NATS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** A CA certificate (PEM file) to verify the NATS servers' TLS certificates (`tls://` URLs). */
  NATS_TLS_CA_FILE: z.string().min(1).optional(),
  /** Prefix for every subject, stream and bucket, so several deployments can share one NATS. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]{1,32}$/)
    .optional(),
  /**
   * This service's private Ed25519 JWK (JSON) for signing its bus requests; its kid names the
   * service (`storage:1`). `npm run bus:credentials` makes a development set (decision 112).
   */
  BUS_SIGNING_KEY: z.string().min(1),
  /** The JWKS (JSON) of every bus principal's public key: what this service accepts. */
  BUS_TRUSTED_KEYS: z.string().min(1),
  /** PostgreSQL connection string; each service keeps its tables in its own schema. */
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Connections in the service's PostgreSQL pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /** Port of /healthz, /readyz and /metrics (0 picks a free one). */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /**
   * Bearer token a scraper presents at `GET /metrics` on the health port; unset: open in
   * development, not served in production (decision 121).
   */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** OTLP/HTTP endpoint for traces; unset means no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});
export type ServiceEnv = z.infer<typeof ServiceEnv>;
