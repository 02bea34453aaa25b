// `node deploy/check-manifests.mjs`: what can be checked here without Docker or a cluster —
// the YAML parses, every manifest is namespace-agnostic, each Deployment runs an existing app
// with probes on a declared port, 30 s of grace and resources, and each Service targets a
// declared port; Compose runs each service from its own bundle, with the Deployment's NODE_OPTIONS.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';

const problems = [];
const load = (file) =>
  parseAllDocuments(readFileSync(file, 'utf8'), { merge: true }).map((document) => {
    for (const error of document.errors) problems.push(`${file}: ${error.message}`);
    return document.toJS({ maxAliasCount: 100 });
  });
const bundleOf = (app) => `dist/apps/${app}/src/main.js`;
const appExists = (app) => existsSync(`apps/${app}/src/main.ts`);

const k8sDir = 'deploy/k8s';
/** NODE_OPTIONS of each app's Deployment, which Compose must run it with too. */
const nodeOptionsOf = new Map();
for (const name of readdirSync(k8sDir)) {
  const file = `${k8sDir}/${name}`;
  const objects = load(file);
  if (name === 'kustomization.yaml') {
    for (const resource of objects[0].resources) {
      if (!existsSync(`${k8sDir}/${resource}`)) problems.push(`${file}: no ${resource}`);
    }
    continue;
  }
  const deployment = objects.find((object) => object.kind === 'Deployment');
  const container = deployment?.spec.template.spec.containers[0];
  const portNames = (container?.ports ?? []).map((port) => port.name);
  for (const object of objects) {
    const where = `${file} ${object.kind}/${object.metadata?.name}`;
    if (!object.apiVersion || !object.kind || !object.metadata?.name)
      problems.push(`${where}: incomplete`);
    if (object.metadata?.namespace) problems.push(`${where}: sets a namespace`);
    if (object.kind === 'Deployment') {
      const app = object.metadata.name;
      const pod = object.spec.template.spec;
      if (!appExists(app)) problems.push(`${where}: no app ${app}`);
      nodeOptionsOf.set(app, container.env?.find((env) => env.name === 'NODE_OPTIONS')?.value);
      if (container.command.join(' ') !== `node ${bundleOf(app)}`)
        problems.push(`${where}: command`);
      if (
        object.spec.selector.matchLabels['app.kubernetes.io/name'] !==
        object.spec.template.metadata.labels['app.kubernetes.io/name']
      ) {
        problems.push(`${where}: selector does not match the pod labels`);
      }
      if (pod.terminationGracePeriodSeconds !== 30) problems.push(`${where}: grace period`);
      if (!container.resources?.requests || !container.resources?.limits)
        problems.push(`${where}: resources`);
      for (const [probe, path] of [
        ['readinessProbe', '/readyz'],
        ['livenessProbe', '/healthz'],
      ]) {
        const check = container[probe]?.httpGet;
        if (check?.path !== path || !portNames.includes(check.port))
          problems.push(`${where}: ${probe}`);
      }
    }
    if (object.kind === 'Service') {
      for (const port of object.spec.ports) {
        if (!portNames.includes(port.targetPort))
          problems.push(`${where}: targetPort ${port.targetPort}`);
      }
    }
  }
}

const compose = load('docker-compose.yml')[0];
for (const [name, service] of Object.entries(compose.services)) {
  if (['nats', 'postgres'].includes(name)) continue;
  if (!appExists(name)) problems.push(`docker-compose.yml: no app ${name}`);
  if (service.command?.join(' ') !== `node ${bundleOf(name)}`)
    problems.push(`docker-compose.yml ${name}: command`);
  if (service.environment?.NODE_OPTIONS !== nodeOptionsOf.get(name))
    problems.push(`docker-compose.yml ${name}: NODE_OPTIONS differ from deploy/k8s`);
}

for (const problem of problems) console.error(problem);
console.log(problems.length === 0 ? 'manifests ok' : `${problems.length} problem(s)`);
process.exitCode = problems.length === 0 ? 0 : 1;
