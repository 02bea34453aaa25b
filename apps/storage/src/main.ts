import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig, uploadLimitsOf } from './config';
import { startStorageService } from './service';

void runServiceProcess({
  name: 'storage',
  env: loadConfig(process.env),
  start: ({ platform, logger, env }) =>
    startStorageService({ platform, logger, uploadLimits: uploadLimitsOf(env) }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
