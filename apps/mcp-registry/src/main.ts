import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig, toMcpRegistryConfig } from './config';
import { startMcpRegistryService } from './service';

const env = loadConfig(process.env);
void runServiceProcess({
  name: 'mcp-registry',
  env,
  secretKeys: ['CREDENTIALS_ENCRYPTION_KEYS'],
  start: ({ platform, logger }) =>
    startMcpRegistryService({
      platform,
      logger,
      config: toMcpRegistryConfig(env),
      // The env_var auth type reads allow-listed variables of this process at connect time.
      environment: process.env,
    }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
