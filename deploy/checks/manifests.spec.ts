import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatewayEnv } from '@wap/gateway-service';
import { ChatServiceEnv } from '@wap/chat-service';
import { McpRegistryServiceEnv } from '@wap/mcp-registry-service';
import { WorkflowRunnerEnv } from '@wap/workflow-runner-service';
import { WebhookIngestServiceEnv } from '@wap/webhook-ingest-service';
import { StorageEnv } from '@wap/storage-service';
import { loadYamlFile, renderKustomization, type K8sObject } from './kustomize';
import {
  checkDockerfile,
  checkEnvironment,
  checkImages,
  checkIngress,
  checkNetworkPolicies,
  checkObjects,
  checkProbes,
  type EnvSchema,
} from './manifest-checks';
import { checkCompose } from './compose-checks';

const root = join(__dirname, '../..');
const k8s = join(root, 'deploy/k8s');

/** Each deployed app and the schema its config.ts parses its environment with. */
const SCHEMAS: Record<string, EnvSchema> = {
  gateway: GatewayEnv,
  storage: StorageEnv,
  chat: ChatServiceEnv,
  'mcp-registry': McpRegistryServiceEnv,
  'workflow-runner': WorkflowRunnerEnv,
  'webhook-ingest': WebhookIngestServiceEnv,
};
const APPS = Object.keys(SCHEMAS);

/** Each render, whether it is an overlay, and whether it is shipped as it is (not the development one). */
const rendered: [string, K8sObject[], boolean][] = [
  ['base', renderKustomization(join(k8s, 'base')), false],
  ['overlays/development', renderKustomization(join(k8s, 'overlays/development')), true],
  ['overlays/production', renderKustomization(join(k8s, 'overlays/production')), true],
];

describe.each(rendered)('deploy/k8s/%s, rendered', (_name, objects, overlay) => {
  test('every app has a Deployment, Service, HPA, PDB and NetworkPolicy that fit together', () => {
    expect(checkObjects(objects, APPS)).toEqual([]);
  });

  test('probes on /healthz and /readyz at container ports; /metrics annotated there', () => {
    expect(checkProbes(objects, APPS)).toEqual([]);
  });

  test("every variable is known to the app's config.ts, which accepts the whole; no secret in clear", () => {
    // The development overlay's /metrics may be open, inside the cluster's network policies.
    const shipped = _name !== 'overlays/development';
    expect(checkEnvironment(objects, SCHEMAS, { shipped })).toEqual([]);
  });

  test('each app runs the image built with its APP, tagged in an overlay', () => {
    expect(checkImages(objects, APPS, overlay)).toEqual([]);
  });

  test('NetworkPolicies: deny by default; NATS, PostgreSQL and only the egress decided', () => {
    expect(checkNetworkPolicies(objects, APPS)).toEqual([]);
  });

  test("the Ingress sends /webhooks/ to webhook-ingest's door and the rest to the gateway", () => {
    expect(checkIngress(objects)).toEqual([]);
  });
});

test('the overlays name their namespace on every object', () => {
  for (const [name, objects, overlay] of rendered) {
    if (!overlay) continue;
    const namespaces = new Set(objects.map((object) => object.metadata.namespace));
    expect([name, [...namespaces]]).toEqual([
      name,
      [expect.stringMatching(/^workspace-assistant/)],
    ]);
  }
});

test('the Dockerfile builds one app per APP with the admin CLI, and runs it as non-root', () => {
  expect(checkDockerfile(join(root, 'Dockerfile'), APPS)).toEqual([]);
});

test('docker-compose.yml: NATS and PostgreSQL with volumes, every app healthy before its dependants', () => {
  expect(checkCompose(root, SCHEMAS)).toEqual([]);
});

/** The compose check's problems with docker-compose.yml edited, in a copy of what it reads. */
function composeProblemsAfter(edit: (compose: string) => string): string[] {
  const broken = mkdtempSync(join(tmpdir(), 'compose-'));
  try {
    mkdirSync(join(broken, 'deploy/compose'), { recursive: true });
    copyFileSync(join(root, 'deploy/compose/Caddyfile'), join(broken, 'deploy/compose/Caddyfile'));
    writeFileSync(
      join(broken, 'docker-compose.yml'),
      edit(readFileSync(join(root, 'docker-compose.yml'), 'utf8')),
    );
    return checkCompose(broken, SCHEMAS);
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
}

/** A deep copy of the production render to break one thing in. */
function production(): K8sObject[] {
  return structuredClone(rendered[2]?.[1] ?? []);
}

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- breaking rendered YAML on purpose

function container(objects: K8sObject[], app: string): Loose {
  const deployment = objects.find(
    (object) => object.kind === 'Deployment' && object.metadata.name === app,
  ) as Loose;
  return deployment['spec']['template']['spec']['containers'][0];
}

describe('the checks find what is wrong', () => {
  test('a secret written in clear, and a variable no config.ts knows', () => {
    const objects = production();
    container(objects, 'mcp-registry')['env'].push(
      { name: 'CREDENTIALS_ENCRYPTION_KEYS', value: 'k1:c2VjcmV0' },
      { name: 'MCP_SYNC_TIMEOUT', value: '10' },
    );
    expect(checkEnvironment(objects, SCHEMAS)).toEqual([
      'mcp-registry: CREDENTIALS_ENCRYPTION_KEYS is a secret and must come from a secretKeyRef',
      'mcp-registry: MCP_SYNC_TIMEOUT is not a variable of its config.ts',
    ]);
  });

  test('/metrics open: a development NODE_ENV without METRICS_TOKEN, in an overlay or in compose', () => {
    const objects = production();
    const storage = container(objects, 'storage');
    storage['env'].push({ name: 'NODE_ENV', value: 'development' });
    storage['env'] = (storage['env'] as Loose[]).filter(
      (entry) => entry['name'] !== 'METRICS_TOKEN',
    );
    expect(checkEnvironment(objects, SCHEMAS)).toContain(
      'storage: /metrics is open; give it METRICS_TOKEN',
    );
    const withoutToken = composeProblemsAfter((compose) =>
      compose.replace(/\n {6}METRICS_TOKEN: [^\n]+/, ''),
    );
    expect(withoutToken).toContain('gateway: /metrics is open; give it METRICS_TOKEN');
  });

  test('the development sign-in turned on, in an overlay or in the compose file', () => {
    const objects = production();
    container(objects, 'gateway')['env'].push({ name: 'DEV_SIGN_IN', value: 'on' });
    expect(checkEnvironment(objects, SCHEMAS)).toContain(
      'gateway: DEV_SIGN_IN must stay off in a shipped deployment (anyone could sign in)',
    );
    const signInOn = composeProblemsAfter((compose) =>
      compose.replace(
        '      NODE_ENV: development\n',
        "      NODE_ENV: development\n      DEV_SIGN_IN: 'on'\n",
      ),
    );
    expect(signInOn).toContain(
      'gateway: DEV_SIGN_IN must stay off in a shipped deployment (anyone could sign in)',
    );
  });

  test("a value the app's schema refuses, and a shared ConfigMap key one app does not know", () => {
    const objects = production();
    const env = container(objects, 'storage')['env'] as Loose[];
    const healthPort = env.find((entry) => entry['name'] === 'HEALTH_PORT');
    if (!healthPort) throw new Error('storage has no HEALTH_PORT');
    healthPort['value'] = 'nine thousand';
    const shared = objects.find((object) => object.metadata.name === 'platform-config') as Loose;
    shared['data']['PUBLIC_BASE_URL'] = 'https://platform.example.com';
    const problems = checkEnvironment(objects, SCHEMAS);
    expect(problems).toContain('storage: PUBLIC_BASE_URL is not a variable of its config.ts');
    expect(problems.some((problem) => problem.startsWith('storage: its config.ts refuses'))).toBe(
      true,
    );
  });

  test('a compose file whose NATS admits anyone, or whose app has no credential file', () => {
    const problems = composeProblemsAfter((compose) =>
      compose
        .replace("command: ['-js', '-c', '/etc/nats/nats-server.conf']", "command: ['-js']")
        .replace("    env_file: ['.bus-credentials/chat.env']\n", ''),
    );
    expect(problems).toContain(
      'nats: must run the generated nats-server.conf, which admits only the platform',
    );
    expect(problems).toContain(
      'chat: its bus credentials come from .bus-credentials/chat.env alone',
    );
  });

  test("a service given another principal's bus identity, or none", () => {
    const objects = production();
    const env = container(objects, 'chat')['env'] as Loose[];
    const signingKey = env.find((entry) => entry['name'] === 'BUS_SIGNING_KEY');
    if (!signingKey) throw new Error('chat has no BUS_SIGNING_KEY');
    signingKey['valueFrom']['secretKeyRef']['name'] = 'gateway-bus';
    const storage = container(objects, 'storage');
    storage['env'] = (storage['env'] as Loose[]).filter(
      (entry) => entry['name'] !== 'NATS_NKEY_SEED' && entry['name'] !== 'BUS_SIGNING_KEY',
    );
    const problems = checkEnvironment(objects, SCHEMAS);
    expect(problems).toContain('chat: BUS_SIGNING_KEY must come from its own Secret chat-bus');
    expect(problems.some((problem) => problem.startsWith('storage: its config.ts refuses'))).toBe(
      true,
    );
  });

  test('a probe on a port the container does not declare, and a missing PDB', () => {
    const objects = production().filter(
      (object) => !(object.kind === 'PodDisruptionBudget' && object.metadata.name === 'chat'),
    );
    container(objects, 'chat')['readinessProbe']['httpGet']['port'] = 'metrics';
    expect(checkObjects(objects, APPS)).toEqual(['chat: no PodDisruptionBudget']);
    expect(checkProbes(objects, APPS)).toEqual([
      'chat: readinessProbe port metrics is no container port',
    ]);
  });

  test("another app's image, and egress to the internet that was not decided", () => {
    const objects = production();
    container(objects, 'storage')['image'] =
      'registry.example.com/platform/workspace-assistant-chat:1.0.0';
    const policy = objects.find(
      (object) => object.kind === 'NetworkPolicy' && object.metadata.name === 'storage',
    ) as Loose;
    policy['spec']['egress'].push({ to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] });
    expect(checkImages(objects, APPS, true)).toEqual([
      'storage: runs image registry.example.com/platform/workspace-assistant-chat:1.0.0, not the one built with APP=storage',
    ]);
    expect(checkNetworkPolicies(objects, APPS)).toEqual([
      'NetworkPolicy/storage: egress to addresses',
      'NetworkPolicy/storage: 0.0.0.0/0 must leave out the private ranges',
      'NetworkPolicy/storage: public egress on ports []',
    ]);
  });

  test('a Dockerfile whose final stage runs as root with dev dependencies', () => {
    const broken = join(root, 'tmp', `Dockerfile.broken-${process.pid}`);
    const text = readFileSync(join(root, 'Dockerfile'), 'utf8')
      .replace('USER 1000:1000', 'USER root')
      .replace('npm ci --omit=dev', 'npm ci');
    mkdirSync(join(root, 'tmp'), { recursive: true });
    writeFileSync(broken, text);
    try {
      expect(checkDockerfile(broken, APPS)).toEqual([
        'Dockerfile: the final stage runs as root',
        'Dockerfile: node_modules must come from an `npm ci --omit=dev` stage',
      ]);
    } finally {
      rmSync(broken, { force: true });
    }
  });

  test('the renderer refuses a kustomization field it does not implement', () => {
    expect(() => loadYamlFile(join(k8s, 'base/kustomization.yaml'))).not.toThrow();
    const dir = join(root, 'tmp', `kustomization-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      'resources: []\nconfigMapGenerator:\n  - name: x\n',
    );
    try {
      expect(() => renderKustomization(dir)).toThrow('configMapGenerator is not supported here');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
