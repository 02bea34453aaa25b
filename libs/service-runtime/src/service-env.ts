import { z } from 'zod';

/** Environment every service process reads in the distributed runtime. */
export const ServiceEnv = z.object({
  /** development, test or production. */
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefix for every subject, stream and bucket, so several deployments can share one NATS. */
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]{1,32}$/)
    .optional(),
  /** PostgreSQL connection string; each service keeps its tables in its own schema. */
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/postgres'),
  /** Connections in the service's PostgreSQL pool. */
  DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /** Port of /healthz and /readyz (0 picks a free one). */
  HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  /** pino level. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** OTLP/HTTP endpoint for traces; unset means no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
});
export type ServiceEnv = z.infer<typeof ServiceEnv>;
