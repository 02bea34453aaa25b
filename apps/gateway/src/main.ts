import { onShutdown, redactConfig } from '@wap/http';
import {
  collectProcessMetrics,
  createLogger,
  platformMetrics,
  startTelemetry,
} from '@wap/observability';
import { createDistributedPlatform, withMetrics, withNamespace } from '@wap/platform';
import { gatewayConfigFromEnv, loadGatewayEnv } from './config';
import { startGateway } from './service';

/** The gateway's composition root in the distributed runtime: it holds no database, only the bus. */
async function main(): Promise<void> {
  const env = loadGatewayEnv(process.env);
  const logger = createLogger({ service: 'gateway', level: env.LOG_LEVEL });
  logger.info({ config: redactConfig(env, ['SESSION_JWT_SECRET', 'METRICS_TOKEN']) }, 'starting');
  collectProcessMetrics('gateway');
  const telemetry = startTelemetry({
    serviceName: 'gateway',
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const connected = await createDistributedPlatform({
    natsUrl: env.NATS_URL,
    serviceName: 'gateway',
    logger,
  });
  const platform = withMetrics(
    env.NATS_NAMESPACE ? withNamespace(connected, env.NATS_NAMESPACE) : connected,
    platformMetrics,
  );
  let draining = false;
  const gateway = await startGateway({
    platform,
    logger,
    config: gatewayConfigFromEnv(env),
    isReady: () => !draining && platform.isReady(),
  });
  onShutdown({
    logger,
    steps: [
      {
        name: 'http',
        run: async () => {
          draining = true;
          await gateway.stop();
        },
      },
      { name: 'platform', run: () => platform.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
