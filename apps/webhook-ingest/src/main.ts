import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startWebhookIngestService } from './service';

void runServiceProcess({
  name: 'webhook-ingest',
  env: loadConfig(process.env),
  start: ({ platform, logger }) => startWebhookIngestService({ platform, logger }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
