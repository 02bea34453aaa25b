import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startMcpRegistryService } from './service';

void runServiceProcess({
  name: 'mcp-registry',
  env: loadConfig(process.env),
  start: ({ platform, logger }) => startMcpRegistryService({ platform, logger }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
