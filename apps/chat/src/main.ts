import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startChatService } from './service';

void runServiceProcess({
  name: 'chat',
  env: loadConfig(process.env),
  start: ({ platform, logger }) => startChatService({ platform, logger }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
