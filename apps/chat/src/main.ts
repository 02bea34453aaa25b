import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startChatService } from './service';

const env = loadConfig(process.env);
void runServiceProcess({
  name: 'chat',
  env,
  secretKeys: ['LLM_API_KEY'],
  start: ({ platform, logger }) => startChatService({ platform, logger, settings: env }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
