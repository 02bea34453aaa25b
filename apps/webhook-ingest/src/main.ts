import { runServiceProcess } from '@wap/service-runtime';
import {
  WEBHOOK_SECRET_KEYS,
  directDoorFromEnv,
  loadConfig,
  webhookIngestConfigFromEnv,
} from './config';
import { startWebhookIngestService } from './service';

void runServiceProcess({
  name: 'webhook-ingest',
  env: loadConfig(process.env),
  secretKeys: WEBHOOK_SECRET_KEYS,
  start: ({ platform, logger, env }) =>
    startWebhookIngestService({
      platform,
      logger,
      config: { ...webhookIngestConfigFromEnv(env), direct: directDoorFromEnv(env) },
    }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
