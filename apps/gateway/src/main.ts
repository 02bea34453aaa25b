import { onShutdown } from '@wap/http';
import { redactConfig } from '@wap/config';
import {
  collectProcessMetrics,
  createLogger,
  platformMetrics,
  startTelemetry,
} from '@wap/observability';
import { createDistributedPlatform, withNamespace } from '@wap/platform';
import { withMetrics } from '@wap/bus-protocol';
import { inboxPrefixOf } from '@wap/contracts';
import { withBusKeys } from '@wap/service-runtime';
import { gatewayConfigFromEnv, loadGatewayEnv } from './config';
import { startGateway } from './service';

/** The gateway's composition root in the distributed runtime: it holds no database, only the bus. */
async function main(): Promise<void> {
  const env = loadGatewayEnv(process.env);
  const logger = createLogger({ service: 'gateway', level: env.LOG_LEVEL });
  logger.info(
    {
      config: redactConfig(env, [
        'SESSION_JWT_SECRET',
        'METRICS_TOKEN',
        'BUS_SIGNING_KEY',
        'NATS_NKEY_SEED',
      ]),
    },
    'starting',
  );
  collectProcessMetrics('gateway');
  const telemetry = startTelemetry({
    serviceName: 'gateway',
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const connected = await createDistributedPlatform({
    natsUrl: env.NATS_URL,
    serviceName: 'gateway',
    logger,
    replicas: env.NATS_STREAM_REPLICAS,
    nats: {
      nkeySeed: env.NATS_NKEY_SEED,
      inboxPrefix: inboxPrefixOf('gateway'),
      tlsCaFile: env.NATS_TLS_CA_FILE,
    },
  });
  const platform = await withBusKeys(
    withMetrics(
      env.NATS_NAMESPACE ? withNamespace(connected, env.NATS_NAMESPACE) : connected,
      platformMetrics,
    ),
    'gateway',
    { signingKey: env.BUS_SIGNING_KEY, trustedKeys: env.BUS_TRUSTED_KEYS },
    logger,
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
