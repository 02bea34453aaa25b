import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startStorageService } from './service';

void runServiceProcess({
  name: 'storage',
  env: loadConfig(process.env),
  start: ({ platform, logger }) => startStorageService({ platform, logger }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
