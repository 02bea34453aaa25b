import { parseCredentialKeys } from '@wap/auth';
import { runServiceProcess } from '@wap/service-runtime';
import { loadConfig } from './config';
import { startWorkflowRunnerService } from './service';

void runServiceProcess({
  name: 'workflow-runner',
  env: loadConfig(process.env),
  secretKeys: ['SMTP_URL', 'CREDENTIALS_ENCRYPTION_KEYS'],
  start: ({ platform, logger, env }) =>
    startWorkflowRunnerService({
      platform,
      logger,
      settings: env,
      keyring: parseCredentialKeys(env.CREDENTIALS_ENCRYPTION_KEYS),
    }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
