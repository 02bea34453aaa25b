import { join, resolve } from 'node:path';
import { ROUTES } from '@wap/contracts';
import { onShutdown } from '@wap/http';
import { redactConfig } from '@wap/config';
import {
  collectProcessMetrics,
  createLogger,
  platformMetrics,
  startTelemetry,
} from '@wap/observability';
import { createEmbeddedPlatform } from '@wap/platform';
import { withMetrics } from '@wap/bus-protocol';
import { chatSettings } from '@wap/chat-service';
import { gatewayConfigFromEnv, startGateway } from '@wap/gateway-service';
import { toMcpRegistryConfig } from '@wap/mcp-registry-service';
import { extensionTokenIssuerOf, uploadLimitsOf } from '@wap/storage-service';
import { WEBHOOK_SECRET_KEYS, webhookIngestConfigFromEnv } from '@wap/webhook-ingest-service';
import { generateBusKeySet } from '@wap/auth';
import { busKeysOf, withBusKeys } from '@wap/service-runtime';
import { startAllServices } from './compose';
import { loadEmbeddedEnv, type EmbeddedEnv } from './config';
import { keepDataDirPrivate, narrowDataDir } from './private-data-dir';
import { dataDirSecret } from './secrets';

const SECRET_SETTINGS: readonly (keyof EmbeddedEnv)[] = [
  'SESSION_JWT_SECRET',
  'METRICS_TOKEN',
  'CREDENTIALS_ENCRYPTION_KEYS',
  'SMTP_URL',
  'LLM_API_KEY',
  'EXTENSION_TOKEN_SECRET',
  ...WEBHOOK_SECRET_KEYS,
];

/** The gateway's settings; the cookie's Secure attribute follows the scheme (plain http here). */
function gatewayConfigOf(env: EmbeddedEnv, dataDir: string) {
  const sessionSecret =
    env.SESSION_JWKS_URL || env.SESSION_JWT_SECRET || env.NODE_ENV === 'production'
      ? env.SESSION_JWT_SECRET
      : dataDirSecret(dataDir, 'session-secret');
  return gatewayConfigFromEnv({
    ...env,
    SESSION_JWT_SECRET: sessionSecret,
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`,
  });
}

/** Every service's settings, with secrets kept in the data folder when none are given. */
function serviceOptionsOf(env: EmbeddedEnv, dataDir: string, publicBaseUrl: string) {
  const credentialKeys =
    env.CREDENTIALS_ENCRYPTION_KEYS ?? `local:${dataDirSecret(dataDir, 'credentials-key')}`;
  return {
    mcpRegistry: {
      config: toMcpRegistryConfig({
        ...env,
        CREDENTIALS_ENCRYPTION_KEYS: credentialKeys,
        PUBLIC_BASE_URL: publicBaseUrl,
      }),
      // The env_var auth type reads allow-listed variables of this process at connect time.
      environment: process.env,
    },
    workflowRunner: {
      PUBLIC_BASE_URL: publicBaseUrl,
      // http_request steps' own allow-list: MCP_SSRF_ALLOWLIST opens nothing to them.
      HTTP_STEP_SSRF_ALLOWLIST: env.HTTP_STEP_SSRF_ALLOWLIST,
      SSRF_ALLOWLIST: env.SSRF_ALLOWLIST,
      MAIL_DROP_DIR: join(dataDir, 'mail'),
      SMTP_URL: env.SMTP_URL,
      ...(env.MAIL_FROM ? { MAIL_FROM: env.MAIL_FROM } : {}),
    },
    webhookIngest: webhookIngestConfigFromEnv(env),
    chat: chatSettings(env),
    storage: {
      uploadLimits: uploadLimitsOf(env),
      extensionTokenIssuer: extensionTokenIssuerOf({
        ...env,
        EXTENSION_TOKEN_SECRET:
          env.EXTENSION_TOKEN_SECRET ?? dataDirSecret(dataDir, 'extension-token-secret'),
      }),
    },
  };
}

/** Every service in one process on the embedded runtime: `npm start`. */
async function main(): Promise<void> {
  const env = loadEmbeddedEnv(process.env);
  const dataDir = resolve(env.DATA_DIR);
  keepDataDirPrivate(dataDir);
  const loggerFor = (service: string) => createLogger({ service, level: env.LOG_LEVEL });
  const logger = loggerFor('embedded');
  logger.info({ config: redactConfig(env, SECRET_SETTINGS) }, 'starting');
  collectProcessMetrics('embedded');
  const telemetry = startTelemetry({
    serviceName: 'embedded',
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });

  const gatewayConfig = gatewayConfigOf(env, dataDir);
  const platform = withMetrics(await createEmbeddedPlatform({ dataDir, logger }), platformMetrics);
  // One process holds every key: fresh ones at each start, since an assertion lives 30 seconds.
  const busKeys = generateBusKeySet();
  // The gateway listens first, not ready until the services are: with PORT=0 its port is known
  // only then, and webhook addresses name it.
  let servicesStarted = false;
  let draining = false;
  const gatewayLogger = loggerFor('gateway');
  const gateway = await startGateway({
    platform: await withBusKeys(platform, 'gateway', busKeysOf(busKeys, 'gateway'), gatewayLogger),
    logger: gatewayLogger,
    config: gatewayConfig,
    isReady: () => servicesStarted && !draining && platform.isReady(),
    routes: ROUTES,
  });

  const publicBaseUrl = env.PUBLIC_BASE_URL ?? `http://localhost:${gateway.port}`;
  const services = await startAllServices(
    platform,
    busKeys,
    loggerFor,
    serviceOptionsOf(env, dataDir, publicBaseUrl),
  );
  // PGlite sets the modes of some files it writes at start itself, whatever the umask.
  narrowDataDir(dataDir);
  servicesStarted = true;

  onShutdown({
    logger,
    steps: [
      {
        name: 'http',
        run: async () => {
          draining = true;
          await gateway.stop();
        },
      },
      { name: 'services', run: () => services.stop() },
      { name: 'platform', run: () => platform.close() },
      { name: 'telemetry', run: () => telemetry.shutdown() },
    ],
  });
  const signInHint = gatewayConfig.webDistDir
    ? `Open ${gateway.url}/ in a browser to sign in and use the app\n`
    : gatewayConfig.devSignIn
      ? `Sign in: ${gateway.url}/dev/sign-in?email=you@example.com\n`
      : '';
  process.stdout.write(
    `\nPlatform running at ${gateway.url}\n` + signInHint + `Data: ${dataDir}\n\n`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
