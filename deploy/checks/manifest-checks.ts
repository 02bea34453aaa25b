import { readFileSync } from 'node:fs';
import type { K8sObject } from './kustomize';

/** What a check needs of a service's config.ts schema: its variables, and a parse. */
export interface EnvSchema {
  shape: Record<string, unknown>;
  safeParse(env: Record<string, string>): { success: boolean; error?: { issues: unknown[] } };
}

/** Variables read by Node itself, not by any config.ts. */
export const RUNTIME_VARIABLES = new Set(['NODE_OPTIONS']);

/** Names whose values are secrets: never a value in a manifest, only a reference. */
export const SECRET_NAME = /(_SECRET|_KEY|_KEYS|_SEED|_TOKEN|PASSWORD|^DATABASE_URL|^SMTP_URL)$/;

/** A principal's bus identity (decision 113): each from the principal's own Secret. */
const BUS_IDENTITY = new Set(['BUS_SIGNING_KEY', 'BUS_TRUSTED_KEYS', 'NATS_NKEY_SEED']);

/** The services that may reach public addresses, and on which ports (decision 106; all: any). */
export const INTERNET_EGRESS: Record<string, number[] | 'all'> = {
  gateway: [443],
  chat: 'all',
  'mcp-registry': 'all',
  'workflow-runner': 'all',
};
/** The services the Ingress controller may reach, with the container port name. */
export const INGRESS_FROM_CONTROLLER: Record<string, string> = {
  gateway: 'http',
  'webhook-ingest': 'webhooks',
};
const PRIVATE_RANGES = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'];

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- rendered YAML is checked field by field

function find(objects: K8sObject[], kind: string, name: string): Loose | undefined {
  return objects.find((object) => object.kind === kind && object.metadata.name === name);
}

function podOf(deployment: Loose): Loose {
  return deployment['spec']['template'];
}

function mainContainer(deployment: Loose): Loose {
  return podOf(deployment)['spec']['containers'][0];
}

function containerPort(container: Loose, port: string | number): number | undefined {
  const declared = (container['ports'] ?? []) as Loose[];
  const match = declared.find((entry) => entry['name'] === port || entry['containerPort'] === port);
  return match?.['containerPort'];
}

function selectorMatches(selector: Loose | undefined, labels: Record<string, string>): boolean {
  const wanted = selector?.['matchLabels'] ?? selector;
  if (!wanted || Object.keys(wanted).length === 0) return false;
  return Object.entries(wanted).every(([key, value]) => labels[key] === value);
}

/** Every app has its Deployment, Service, HPA, PDB and NetworkPolicy, and they fit together. */
export function checkObjects(objects: K8sObject[], apps: readonly string[]): string[] {
  const problems: string[] = [];
  for (const deployment of objects.filter((object) => object.kind === 'Deployment')) {
    if (!apps.includes(deployment.metadata.name)) {
      problems.push(`Deployment/${deployment.metadata.name}: not an app of this repository`);
    }
  }
  for (const app of apps) {
    const deployment = find(objects, 'Deployment', app);
    for (const kind of [
      'Deployment',
      'Service',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'NetworkPolicy',
    ]) {
      if (!find(objects, kind, app)) problems.push(`${app}: no ${kind}`);
    }
    if (!deployment) continue;
    const labels = podOf(deployment)['metadata']['labels'] ?? {};
    if (!selectorMatches(deployment['spec']['selector'], labels)) {
      problems.push(`Deployment/${app}: its selector does not match its pods`);
    }
    const service = find(objects, 'Service', app);
    if (service && !selectorMatches(service['spec']['selector'], labels)) {
      problems.push(`Service/${app}: selects no pod of ${app}`);
    }
    const pdb = find(objects, 'PodDisruptionBudget', app);
    if (pdb && !selectorMatches(pdb['spec']['selector'], labels)) {
      problems.push(`PodDisruptionBudget/${app}: selects no pod of ${app}`);
    }
    const hpa = find(objects, 'HorizontalPodAutoscaler', app);
    if (hpa) {
      const target = hpa['spec']['scaleTargetRef'];
      if (target['kind'] !== 'Deployment' || target['name'] !== app) {
        problems.push(`HorizontalPodAutoscaler/${app}: scales ${target['kind']}/${target['name']}`);
      }
      if (!(
        hpa['spec']['minReplicas'] >= 1 && hpa['spec']['maxReplicas'] >= hpa['spec']['minReplicas']
      )) {
        problems.push(`HorizontalPodAutoscaler/${app}: replica bounds`);
      }
    }
    const container = mainContainer(deployment);
    for (const port of (service?.['spec']['ports'] ?? []) as Loose[]) {
      if (containerPort(container, port['targetPort']) === undefined) {
        problems.push(`Service/${app}: targetPort ${port['targetPort']} is no container port`);
      }
    }
    const resources = container['resources'] ?? {};
    if (
      !resources['requests']?.['cpu'] ||
      !resources['requests']?.['memory'] ||
      !resources['limits']?.['memory']
    ) {
      problems.push(`Deployment/${app}: cpu and memory requests and a memory limit`);
    }
  }
  return problems;
}

/** Probes on /healthz and /readyz at declared ports; /metrics annotated on the probe's port. */
export function checkProbes(objects: K8sObject[], apps: readonly string[]): string[] {
  const problems: string[] = [];
  for (const app of apps) {
    const deployment = find(objects, 'Deployment', app);
    if (!deployment) continue;
    const container = mainContainer(deployment);
    const expected: Record<string, string> = {
      startupProbe: '/healthz',
      readinessProbe: '/readyz',
      livenessProbe: '/healthz',
    };
    for (const [probe, path] of Object.entries(expected)) {
      const check = container[probe]?.['httpGet'];
      if (!check) {
        problems.push(`${app}: no ${probe}`);
        continue;
      }
      if (check['path'] !== path)
        problems.push(`${app}: ${probe} on ${check['path']}, not ${path}`);
      if (containerPort(container, check['port']) === undefined) {
        problems.push(`${app}: ${probe} port ${check['port']} is no container port`);
      }
    }
    const healthPort = containerPort(container, container['livenessProbe']?.['httpGet']?.['port']);
    const annotations = podOf(deployment)['metadata']['annotations'] ?? {};
    if (
      annotations['prometheus.io/scrape'] !== 'true' ||
      annotations['prometheus.io/path'] !== '/metrics' ||
      Number(annotations['prometheus.io/port']) !== healthPort
    ) {
      problems.push(
        `${app}: Prometheus annotations must name /metrics on the health port ${healthPort}`,
      );
    }
  }
  return problems;
}

/** A placeholder for a secret's value, of the shape its variable takes. */
export function placeholderSecret(name: string): string {
  if (name === 'DATABASE_URL') return 'postgres://user:secret@postgres:5432/platform';
  if (name === 'CREDENTIALS_ENCRYPTION_KEYS')
    return 'k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=';
  if (name.endsWith('_URL')) return 'https://secret.example.com/';
  if (name === 'NATS_NKEY_SEED') return 'SUAPLACEHOLDERSEEDOFANKEYUSEROFTHEPLATFORM';
  return 'a-placeholder-secret-value-of-forty-chars';
}

/**
 * The environment of each app's container: every variable known to its config.ts (or read by
 * Node), each secret only by reference, ConfigMap references to keys that exist, and the whole
 * (secrets as placeholders) accepted by the app's schema.
 */
/** A shipped deployment never opens the development sign-in (decision 117). */
export function openSignInProblems(app: string, env: Record<string, string>): string[] {
  return env['DEV_SIGN_IN'] === undefined || env['DEV_SIGN_IN'] === 'off'
    ? []
    : [`${app}: DEV_SIGN_IN must stay off in a shipped deployment (anyone could sign in)`];
}

/** Where production does not refuse it, `/metrics` needs a token (decision 121). */
export function openMetricsProblems(app: string, env: Record<string, string>): string[] {
  return env['NODE_ENV'] !== 'production' && !env['METRICS_TOKEN']
    ? [`${app}: /metrics is open; give it METRICS_TOKEN`]
    : [];
}

export function checkEnvironment(
  objects: K8sObject[],
  schemas: Record<string, EnvSchema>,
  options: { shipped: boolean } = { shipped: true },
): string[] {
  const problems: string[] = [];
  const configMaps = new Map(
    objects
      .filter((object) => object.kind === 'ConfigMap')
      .map((object) => [
        object.metadata.name,
        ((object as Loose)['data'] ?? {}) as Record<string, string>,
      ]),
  );
  for (const [name, data] of configMaps) {
    for (const key of Object.keys(data)) {
      if (SECRET_NAME.test(key)) problems.push(`ConfigMap/${name}: ${key} is a secret, in clear`);
    }
  }
  if (objects.some((object) => object.kind === 'Secret')) {
    problems.push('a Secret is in the manifests: secrets are created apart and referenced');
  }
  for (const [app, schema] of Object.entries(schemas)) {
    const deployment = find(objects, 'Deployment', app);
    if (!deployment) continue;
    const container = mainContainer(deployment);
    const env: Record<string, string> = {};
    for (const source of (container['envFrom'] ?? []) as Loose[]) {
      const mapName = source['configMapRef']?.['name'];
      const data = mapName === undefined ? undefined : configMaps.get(mapName);
      if (!data) {
        problems.push(
          `${app}: envFrom ${JSON.stringify(source)} must name a ConfigMap of the manifests`,
        );
        continue;
      }
      Object.assign(env, data);
    }
    for (const entry of (container['env'] ?? []) as Loose[]) {
      const name: string = entry['name'];
      const from = entry['valueFrom'];
      if (SECRET_NAME.test(name) && !from?.['secretKeyRef']) {
        problems.push(`${app}: ${name} is a secret and must come from a secretKeyRef`);
      }
      if (from?.['secretKeyRef']) {
        // A service's own identity comes from its own Secret: another's would let it act as that one.
        const ownSecret = `${app}-bus`;
        if (BUS_IDENTITY.has(name) && from['secretKeyRef']['name'] !== ownSecret) {
          problems.push(`${app}: ${name} must come from its own Secret ${ownSecret}`);
        }
        env[name] = placeholderSecret(name);
      } else if (from?.['configMapKeyRef']) {
        const { name: mapName, key, optional } = from['configMapKeyRef'];
        const value = configMaps.get(mapName)?.[key];
        if (value !== undefined) env[name] = value;
        else if (!optional)
          problems.push(`${app}: ${name} refers to ${mapName}.${key}, which does not exist`);
      } else if (typeof entry['value'] === 'string') {
        env[name] = entry['value'];
      } else {
        problems.push(`${app}: ${name} has no value and no reference`);
      }
    }
    for (const name of Object.keys(env)) {
      if (!Object.hasOwn(schema.shape, name) && !RUNTIME_VARIABLES.has(name)) {
        problems.push(`${app}: ${name} is not a variable of its config.ts`);
      }
    }
    problems.push(...openSignInProblems(app, env));
    if (options.shipped) problems.push(...openMetricsProblems(app, env));
    const parsed = schema.safeParse(env);
    if (!parsed.success) {
      problems.push(
        `${app}: its config.ts refuses the environment: ${JSON.stringify(parsed.error?.issues)}`,
      );
    }
  }
  return problems;
}

/** Each container runs its own app's image, with a tag, and no command of its own. */
export function checkImages(
  objects: K8sObject[],
  apps: readonly string[],
  tagged: boolean,
): string[] {
  const problems: string[] = [];
  for (const app of apps) {
    const deployment = find(objects, 'Deployment', app);
    if (!deployment) continue;
    const container = mainContainer(deployment);
    const image: string = container['image'];
    const [repository = '', tag] = image.split(/:(?=[^/:]+$)/);
    if (repository.split('/').pop() !== `workspace-assistant-${app}`) {
      problems.push(`${app}: runs image ${image}, not the one built with APP=${app}`);
    }
    if (tagged && !tag) problems.push(`${app}: image ${image} has no tag`);
    if (container['command'] || container['args']) {
      problems.push(`${app}: a command of its own; the image's CMD runs dist/apps/${app}`);
    }
  }
  return problems;
}

/**
 * The namespace denies by default; each app reaches NATS, PostgreSQL only when it has a
 * DATABASE_URL, public addresses only as INTERNET_EGRESS says, and accepts the Ingress controller
 * only as INGRESS_FROM_CONTROLLER says.
 */
export function checkNetworkPolicies(objects: K8sObject[], apps: readonly string[]): string[] {
  const problems: string[] = [];
  const denyAll = find(objects, 'NetworkPolicy', 'default-deny');
  if (
    !denyAll ||
    Object.keys(denyAll['spec']['podSelector'] ?? {}).length !== 0 ||
    denyAll['spec']['ingress'] ||
    denyAll['spec']['egress'] ||
    !['Ingress', 'Egress'].every((type) => denyAll['spec']['policyTypes']?.includes(type))
  ) {
    problems.push('NetworkPolicy/default-deny must select every pod and allow nothing');
  }
  for (const policy of objects.filter((object) => object.kind === 'NetworkPolicy') as Loose[]) {
    const name = policy['metadata']['name'];
    if (name === 'default-deny' || name === 'allow-dns') continue;
    if (!apps.includes(name)) problems.push(`NetworkPolicy/${name}: not an app's`);
  }
  for (const app of apps) {
    const policy = find(objects, 'NetworkPolicy', app);
    const deployment = find(objects, 'Deployment', app);
    if (!policy || !deployment) continue;
    if (!selectorMatches(policy['spec']['podSelector'], podOf(deployment)['metadata']['labels'])) {
      problems.push(`NetworkPolicy/${app}: selects no pod of ${app}`);
    }
    const egress = (policy['spec']['egress'] ?? []) as Loose[];
    const reaches = (peer: string, port: number) =>
      egress.some(
        (rule) =>
          (rule['to'] ?? []).some(
            (to: Loose) => to['podSelector']?.['matchLabels']?.['app.kubernetes.io/name'] === peer,
          ) && (rule['ports'] ?? []).some((entry: Loose) => entry['port'] === port),
      );
    if (!reaches('nats', 4222)) problems.push(`NetworkPolicy/${app}: no egress to NATS`);
    const hasDatabase = (mainContainer(deployment)['env'] ?? []).some(
      (entry: Loose) => entry['name'] === 'DATABASE_URL',
    );
    if (reaches('postgresql', 5432) !== hasDatabase) {
      problems.push(
        `NetworkPolicy/${app}: PostgreSQL egress ${hasDatabase ? 'missing' : 'without a DATABASE_URL'}`,
      );
    }
    const internet = egress.filter((rule) => (rule['to'] ?? []).some((to: Loose) => to['ipBlock']));
    const allowed = INTERNET_EGRESS[app];
    if (internet.length > 0 && !allowed) problems.push(`NetworkPolicy/${app}: egress to addresses`);
    if (allowed && internet.length === 0)
      problems.push(`NetworkPolicy/${app}: no egress to public addresses`);
    for (const rule of internet) {
      for (const to of rule['to'] as Loose[]) {
        const block = to['ipBlock'];
        if (block && !PRIVATE_RANGES.every((range) => block['except']?.includes(range))) {
          problems.push(`NetworkPolicy/${app}: ${block['cidr']} must leave out the private ranges`);
        }
      }
      const ports = ((rule['ports'] ?? []) as Loose[]).map((entry) => entry['port']);
      if (allowed !== 'all' && JSON.stringify(ports) !== JSON.stringify(allowed)) {
        problems.push(`NetworkPolicy/${app}: public egress on ports ${JSON.stringify(ports)}`);
      }
    }
    const container = mainContainer(deployment);
    const fromController = ((policy['spec']['ingress'] ?? []) as Loose[]).filter((rule) =>
      (rule['from'] ?? []).some(
        (from: Loose) =>
          from['namespaceSelector']?.['matchLabels']?.['kubernetes.io/metadata.name'] ===
          'ingress-nginx',
      ),
    );
    const door = INGRESS_FROM_CONTROLLER[app];
    const opened = fromController.flatMap((rule) =>
      (rule['ports'] ?? []).map((entry: Loose) => entry['port']),
    );
    if (
      door === undefined
        ? opened.length > 0
        : JSON.stringify(opened) !== JSON.stringify([containerPort(container, door)])
    ) {
      problems.push(
        `NetworkPolicy/${app}: ingress from the Ingress controller on ${JSON.stringify(opened)}`,
      );
    }
  }
  return problems;
}

/** The Ingress sends /webhooks/ to webhook-ingest's own door and everything else to the gateway. */
export function checkIngress(objects: K8sObject[]): string[] {
  const ingresses = objects.filter((object) => object.kind === 'Ingress') as Loose[];
  if (ingresses.length !== 1) return [`${ingresses.length} Ingresses, expected one`];
  const paths = ingresses[0]?.['spec']['rules'].flatMap(
    (rule: Loose) => rule['http']['paths'],
  ) as Loose[];
  const backend = (path: string) =>
    paths.find((entry) => entry['path'] === path)?.['backend']?.['service'];
  const problems: string[] = [];
  const routes: [string, string, string, string][] = [
    ['/webhooks/', 'webhook-ingest', 'webhooks', 'WEBHOOK_PORT'],
    ['/', 'gateway', 'http', 'PORT'],
  ];
  for (const [path, app, portName, variable] of routes) {
    const service = backend(path);
    if (service?.['name'] !== app || service?.['port']?.['name'] !== portName) {
      problems.push(`Ingress: ${path} goes to ${JSON.stringify(service)}, not ${app}:${portName}`);
      continue;
    }
    const target = find(objects, 'Service', app)?.['spec']['ports'].find(
      (port: Loose) => port['name'] === portName,
    );
    const deployment = find(objects, 'Deployment', app);
    const container = deployment && mainContainer(deployment);
    const listening = container?.['env']?.find((entry: Loose) => entry['name'] === variable)?.[
      'value'
    ];
    if (
      !target ||
      !container ||
      containerPort(container, target['targetPort']) !== Number(listening)
    ) {
      problems.push(
        `Ingress: ${path} reaches a port that ${app} does not listen on (${variable}=${listening})`,
      );
    }
  }
  return problems;
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined). */
export function dockerfileStages(text: string): { name: string; lines: string[] }[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: { name: string; lines: string[] }[] = [];
  for (const line of instructions) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ name: from[1] ?? String(stages.length), lines: [] });
    stages.at(-1)?.lines.push(line);
  }
  return stages;
}

/**
 * One image per APP: the build refuses an unknown app and bundles the admin CLI too; the final
 * stage runs as a non-root user, has a health check, installs nothing and takes node_modules
 * only from a stage that installed without dev dependencies.
 */
export function checkDockerfile(file: string, apps: readonly string[]): string[] {
  const stages = dockerfileStages(readFileSync(file, 'utf8'));
  const problems: string[] = [];
  const final = stages.at(-1);
  if (!final) return ['Dockerfile: no stage'];
  const build = stages.find((stage) =>
    stage.lines.some((line) => /nx run-many -t build/.test(line)),
  );
  const buildLine = build?.lines.find((line) => /nx run-many -t build/.test(line)) ?? '';
  const accepted = /case "\$APP" in\s+([\w|-]+)\)/.exec(buildLine)?.[1]?.split('|') ?? [];
  for (const app of [...apps, 'admin']) {
    if (!accepted.includes(app))
      problems.push(`Dockerfile: APP=${app} is not accepted by the build`);
  }
  if (!/projects="\$APP,admin"/.test(buildLine))
    problems.push('Dockerfile: the admin CLI is not built into every image');
  if (!final.lines.some((line) => /^ARG APP\b/.test(line)))
    problems.push('Dockerfile: the final stage does not take APP');
  const user = final.lines.filter((line) => /^USER\s/.test(line)).at(-1);
  if (!user || /^USER\s+(root|0)(:|\s|$)/.test(user))
    problems.push('Dockerfile: the final stage runs as root');
  if (!final.lines.some((line) => /^HEALTHCHECK\s/.test(line)))
    problems.push('Dockerfile: no HEALTHCHECK');
  if (final.lines.some((line) => /\bnpm (ci|install|i)\b/.test(line))) {
    problems.push('Dockerfile: the final stage installs packages');
  }
  const modules = final.lines.find((line) => /^COPY --from=(\S+) \S*node_modules/.test(line));
  const source = modules && /^COPY --from=(\S+)/.exec(modules)?.[1];
  const sourceStage = stages.find((stage) => stage.name === source);
  if (!sourceStage?.lines.some((line) => /npm ci .*--omit=dev/.test(line))) {
    problems.push('Dockerfile: node_modules must come from an `npm ci --omit=dev` stage');
  }
  const command = final.lines.filter((line) => /^CMD\s/.test(line)).at(-1) ?? '';
  if (!command.includes('dist/apps/${APP}/src/main.js')) {
    problems.push('Dockerfile: CMD does not run the bundle of APP');
  }
  return problems;
}
