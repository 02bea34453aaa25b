import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadYamlFile } from './kustomize';
import {
  RUNTIME_VARIABLES,
  SECRET_NAME,
  openMetricsProblems,
  openSignInProblems,
  type EnvSchema,
} from './manifest-checks';

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- parsed YAML is checked field by field

/** `${NAME}`, `${NAME:-default}` or `${NAME:?message}`: a value Compose takes from the environment. */
const INTERPOLATION = /\$\{[A-Z_][A-Z0-9_]*(?:(?::?[-?])[^}]*)?\}/g;
/** Stands for an interpolated value when the schema parses the environment. */
const FROM_ENVIRONMENT = 'value-from-the-environment-0123456789abcdef';
const INFRASTRUCTURE = new Set(['nats', 'postgres', 'proxy']);
/**
 * What an app's credential file (`npm run bus:credentials`, decision 113) gives it, as
 * placeholders of the values' shapes: the file is generated apart, never committed.
 */
const CREDENTIAL_FILE_VARIABLES = {
  BUS_SIGNING_KEY: FROM_ENVIRONMENT,
  BUS_TRUSTED_KEYS: FROM_ENVIRONMENT,
  NATS_NKEY_SEED: `SU${FROM_ENVIRONMENT}`,
};
const credentialFileOf = (app: string) => `.bus-credentials/${app}.env`;

/** Services listed under depends_on, each with the condition it waits for. */
function dependencies(service: Loose): Record<string, string | undefined> {
  const dependsOn = service['depends_on'] ?? {};
  if (Array.isArray(dependsOn))
    return Object.fromEntries(dependsOn.map((name: string) => [name, undefined]));
  return Object.fromEntries(
    Object.entries(dependsOn).map(([name, value]) => [name, (value as Loose)['condition']]),
  );
}

/**
 * docker-compose.yml: NATS with JetStream and a volume, PostgreSQL with a volume, each app from
 * its own APP build with a health check, started after what it needs is healthy, its
 * environment known to its config.ts and accepted by it, secrets only from the environment,
 * and the proxy routing /webhooks/ to webhook-ingest's WEBHOOK_PORT and the rest to the gateway.
 */
export function checkCompose(root: string, schemas: Record<string, EnvSchema>): string[] {
  const compose = loadYamlFile(join(root, 'docker-compose.yml'))[0] as Loose;
  const services = compose['services'] as Record<string, Loose>;
  const problems: string[] = [];
  const nats = services['nats'];
  if (
    !nats?.['command']?.includes('-js') ||
    !(nats?.['volumes']?.length > 0) ||
    !nats?.['healthcheck']
  ) {
    problems.push('nats: JetStream (-js), a volume and a health check');
  }
  const natsConfig = (nats?.['volumes'] ?? []).some((volume: string) =>
    volume.startsWith('./.bus-credentials/nats-server.conf:'),
  );
  if (!natsConfig || !nats?.['command']?.includes('-c')) {
    problems.push('nats: must run the generated nats-server.conf, which admits only the platform');
  }
  const postgres = services['postgres'];
  if (
    !postgres?.['volumes']?.some((volume: string) =>
      volume.endsWith(':/var/lib/postgresql/data'),
    ) ||
    !postgres?.['healthcheck']
  ) {
    problems.push('postgres: a data volume and a health check');
  }
  for (const name of Object.keys(services)) {
    if (!INFRASTRUCTURE.has(name) && !schemas[name])
      problems.push(`${name}: not an app of this repository`);
  }
  const environments: Record<string, Record<string, string>> = {};
  for (const [app, schema] of Object.entries(schemas)) {
    const service = services[app];
    if (!service) {
      problems.push(`${app}: not in docker-compose.yml`);
      continue;
    }
    if (
      service['build']?.['args']?.['APP'] !== app ||
      service['image'] !== `workspace-assistant-${app}:local`
    ) {
      problems.push(`${app}: must be built with APP=${app} as workspace-assistant-${app}:local`);
    }
    if (!service['healthcheck']?.['test']) problems.push(`${app}: no health check`);
    const env = (service['environment'] ?? {}) as Record<string, string>;
    environments[app] = env;
    const waitsFor = dependencies(service);
    const needs = ['nats', ...(env['DATABASE_URL'] ? ['postgres'] : [])];
    for (const dependency of needs) {
      if (waitsFor[dependency] !== 'service_healthy')
        problems.push(`${app}: does not wait for ${dependency} to be healthy`);
    }
    for (const [dependency, condition] of Object.entries(waitsFor)) {
      if (condition !== 'service_healthy')
        problems.push(`${app}: waits for ${dependency} without service_healthy`);
    }
    const envFiles = (service['env_file'] ?? []) as string[];
    if (envFiles.length !== 1 || envFiles[0] !== credentialFileOf(app)) {
      problems.push(`${app}: its bus credentials come from ${credentialFileOf(app)} alone`);
    }
    const parsedEnv: Record<string, string> = { ...CREDENTIAL_FILE_VARIABLES };
    for (const [name, value] of Object.entries(env)) {
      const text = String(value);
      if (!Object.hasOwn(schema.shape, name) && !RUNTIME_VARIABLES.has(name)) {
        problems.push(`${app}: ${name} is not a variable of its config.ts`);
      }
      const literal = text.replace(INTERPOLATION, '');
      if (SECRET_NAME.test(name) && (literal === text || /:[^/@:]+@/.test(literal))) {
        problems.push(`${app}: ${name} holds a secret in clear; take it from the environment`);
      }
      parsedEnv[name] = text.replace(INTERPOLATION, FROM_ENVIRONMENT);
    }
    problems.push(...openSignInProblems(app, parsedEnv), ...openMetricsProblems(app, parsedEnv));
    const parsed = schema.safeParse(parsedEnv);
    if (!parsed.success)
      problems.push(`${app}: its config.ts refuses ${JSON.stringify(parsed.error?.issues)}`);
  }

  const proxy = services['proxy'];
  const proxyWaits = proxy ? dependencies(proxy) : {};
  if (
    !proxy?.['ports']?.length ||
    proxyWaits['gateway'] !== 'service_healthy' ||
    proxyWaits['webhook-ingest'] !== 'service_healthy'
  ) {
    problems.push('proxy: published, after the gateway and webhook-ingest are healthy');
  }
  const caddyfile = readFileSync(join(root, 'deploy/compose/Caddyfile'), 'utf8');
  const webhooks = /handle \/webhooks\/\*\s*\{\s*reverse_proxy webhook-ingest:(\d+)\s*\}/.exec(
    caddyfile,
  )?.[1];
  const rest = /handle\s*\{\s*reverse_proxy gateway:(\d+)\s*\}/.exec(caddyfile)?.[1];
  if (webhooks === undefined || webhooks !== environments['webhook-ingest']?.['WEBHOOK_PORT']) {
    problems.push(`proxy: /webhooks/ must go to webhook-ingest's WEBHOOK_PORT, not ${webhooks}`);
  }
  if (rest === undefined || rest !== environments['gateway']?.['PORT']) {
    problems.push(`proxy: the rest must go to the gateway's PORT, not ${rest}`);
  }
  return problems;
}
