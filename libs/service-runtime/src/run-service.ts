import type { Logger } from 'pino';
import { metricsAccessOf, onShutdown, startHealthServer } from '@wap/http';
import { redactConfig } from '@wap/config';
import {
  collectProcessMetrics,
  createLogger,
  platformMetrics,
  startTelemetry,
} from '@wap/observability';
import { createDistributedPlatform, withNamespace, type Platform } from '@wap/platform';
import { withMetrics } from '@wap/bus-protocol';
import { inboxPrefixOf, type ServiceName } from '@wap/contracts';
import { withBusKeys } from './bus-keys';
import type { ServiceEnv } from './service-env';

/** A started service: what its composition root needs to stop it. */
export interface ServiceHandle {
  stop(): Promise<void>;
}

/**
 * The distributed composition root shared by every service process, in the order the
 * conventions ask: config → logger → telemetry → platform → service → health; on SIGTERM the
 * reverse: not ready, stop the service, drain the bus, close the pool, flush traces, exit.
 */
export async function runServiceProcess<Env extends ServiceEnv>(options: {
  name: ServiceName;
  env: Env;
  secretKeys?: readonly (keyof Env)[];
  start: (deps: { platform: Platform; logger: Logger; env: Env }) => Promise<ServiceHandle>;
}): Promise<void> {
  const { env, name } = options;
  const logger = createLogger({ service: name, level: env.LOG_LEVEL });
  logger.info(
    {
      config: redactConfig(env, [
        'DATABASE_URL',
        'BUS_SIGNING_KEY',
        'NATS_NKEY_SEED',
        'METRICS_TOKEN',
        ...(options.secretKeys ?? []),
      ]),
    },
    'starting',
  );
  collectProcessMetrics(name);
  const telemetry = startTelemetry({
    serviceName: name,
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const connected = await createDistributedPlatform({
    natsUrl: env.NATS_URL,
    databaseUrl: env.DATABASE_URL,
    serviceName: name,
    logger,
    poolSize: env.DATABASE_POOL_SIZE,
    replicas: env.NATS_STREAM_REPLICAS,
    nats: {
      nkeySeed: env.NATS_NKEY_SEED,
      inboxPrefix: inboxPrefixOf(name),
      tlsCaFile: env.NATS_TLS_CA_FILE,
    },
  });
  const platform = await withBusKeys(
    withMetrics(
      env.NATS_NAMESPACE ? withNamespace(connected, env.NATS_NAMESPACE) : connected,
      platformMetrics,
    ),
    name,
    { signingKey: env.BUS_SIGNING_KEY, trustedKeys: env.BUS_TRUSTED_KEYS },
    logger,
  );
  const service = await options.start({ platform, logger, env });
  const health = await startHealthServer({
    port: env.HEALTH_PORT,
    isReady: () => platform.isReady(),
    metricsAccess: metricsAccessOf({
      token: env.METRICS_TOKEN,
      production: env.NODE_ENV === 'production',
    }),
    logger,
  });
  logger.info({ healthPort: health.port }, `${name} ready`);
  onShutdown({
    logger,
    steps: [
      { name: 'readiness', run: () => health.close() },
      { name: 'service', run: () => service.stop() },
      { name: 'platform', run: () => platform.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
  });
}
