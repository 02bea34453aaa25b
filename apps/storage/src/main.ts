import { runServiceProcess } from '@wap/service-runtime';
import { extensionTokenIssuerOf, loadConfig, uploadLimitsOf } from './config';
import { startStorageService } from './service';

void runServiceProcess({
  name: 'storage',
  env: loadConfig(process.env),
  secretKeys: ['EXTENSION_TOKEN_SECRET'],
  start: ({ platform, logger, env }) =>
    startStorageService({
      platform,
      logger,
      uploadLimits: uploadLimitsOf(env),
      extensionTokenIssuer: extensionTokenIssuerOf(env),
    }),
}).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
