import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

/** A rendered Kubernetes object; the checks read the fields they need. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [field: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Every document of a YAML file (anchors and merge keys resolved); a syntax error throws. */
export function loadYamlFile(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8'), { merge: true })
    .map((document) => {
      if (document.errors.length > 0) {
        throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
      }
      return document.toJS({ maxAliasCount: 100 }) as unknown;
    })
    .filter((value) => value !== null);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The kustomization fields this renderer implements; any other one is refused, not ignored. */
const SUPPORTED_FIELDS = new Set([
  'apiVersion',
  'kind',
  'resources',
  'namespace',
  'labels',
  'images',
  'patches',
]);
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'IngressClass',
  'PersistentVolume',
  'StorageClass',
]);

/**
 * Strategic merge, as far as these manifests use it: maps merge key by key (null deletes), lists
 * of named items (containers, env, volumes) merge by `name`, other lists are replaced.
 * Directives (`$patch`, `$setElementOrder`...) are refused.
 */
export function strategicMerge(target: Json | undefined, patch: Json): Json {
  if (isObject(patch)) {
    const merged: JsonObject = isObject(target) ? { ...target } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith('$')) throw new Error(`strategic merge directive ${key} is not supported`);
      if (value === null) delete merged[key];
      else merged[key] = strategicMerge(merged[key], value);
    }
    return merged;
  }
  const named = (list: Json[]) =>
    list.every((item) => isObject(item) && typeof item['name'] === 'string');
  if (Array.isArray(patch) && Array.isArray(target) && named(patch) && named(target)) {
    const merged = [...target];
    for (const item of patch as JsonObject[]) {
      const at = merged.findIndex((existing) => (existing as JsonObject)['name'] === item['name']);
      if (at === -1) merged.push(item);
      else merged[at] = strategicMerge(merged[at], item);
    }
    return merged;
  }
  return patch;
}

/** RFC 6902 `add`, `replace` and `remove` with RFC 6901 pointers. */
export function applyJsonPatch(document: Json, operations: unknown): Json {
  if (!Array.isArray(operations)) throw new Error('a JSON patch is a list of operations');
  const result = structuredClone(document);
  for (const operation of operations as JsonObject[]) {
    const { op, path, value } = operation;
    if (typeof path !== 'string' || !path.startsWith('/')) throw new Error(`bad path ${path}`);
    const tokens = path
      .slice(1)
      .split('/')
      .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop() as string;
    let parent: Json = result;
    for (const token of tokens) {
      const next: Json | undefined = Array.isArray(parent)
        ? parent[Number(token)]
        : isObject(parent)
          ? parent[token]
          : undefined;
      if (next === undefined) throw new Error(`${op} ${path}: ${token} does not exist`);
      parent = next;
    }
    const exists = Array.isArray(parent)
      ? Number(last) < parent.length
      : isObject(parent) && Object.hasOwn(parent, last);
    if (op !== 'add' && !exists) throw new Error(`${op} ${path}: nothing there`);
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op === 'remove') parent.splice(index, 1);
      else if (op === 'add') parent.splice(index, 0, value as Json);
      else if (op === 'replace') parent[index] = value as Json;
      else throw new Error(`JSON patch op ${String(op)} is not supported`);
    } else if (isObject(parent)) {
      if (op === 'remove') delete parent[last];
      else if (op === 'add' || op === 'replace') parent[last] = value as Json;
      else throw new Error(`JSON patch op ${String(op)} is not supported`);
    } else {
      throw new Error(`${op} ${path}: the parent is not an object or a list`);
    }
  }
  return result;
}

function asObject(value: unknown, where: string): K8sObject {
  if (!isObject(value) || typeof value['kind'] !== 'string' || !isObject(value['metadata'])) {
    throw new Error(`${where}: not a Kubernetes object`);
  }
  return value as unknown as K8sObject;
}

function containersOf(object: K8sObject): JsonObject[] {
  const spec = object['spec'];
  const template = isObject(spec) ? spec['template'] : undefined;
  const podSpec = isObject(template) ? template['spec'] : undefined;
  if (!isObject(podSpec)) return [];
  return [podSpec['initContainers'], podSpec['containers']].flatMap((list) =>
    Array.isArray(list) ? (list as JsonObject[]) : [],
  );
}

function applyPatches(objects: K8sObject[], patches: unknown, dir: string): K8sObject[] {
  let result = objects;
  for (const entry of (patches ?? []) as JsonObject[]) {
    const target = entry['target'];
    if (typeof entry['path'] === 'string' && target === undefined) {
      for (const patch of loadYamlFile(join(dir, entry['path']))) {
        const { kind, metadata } = asObject(patch, entry['path']);
        const at = result.findIndex((o) => o.kind === kind && o.metadata.name === metadata.name);
        if (at === -1) throw new Error(`${entry['path']}: no ${kind}/${metadata.name} to patch`);
        result = result.map((object, index) =>
          index === at
            ? (strategicMerge(object as unknown as Json, patch as Json) as unknown as K8sObject)
            : object,
        );
      }
    } else if (isObject(target) && typeof entry['patch'] === 'string') {
      const matches = (object: K8sObject) =>
        object.kind === target['kind'] &&
        (target['name'] === undefined || object.metadata.name === target['name']);
      if (!result.some(matches))
        throw new Error(`no object matches patch target ${JSON.stringify(target)}`);
      const operations: unknown = parse(entry['patch']);
      result = result.map((object) =>
        matches(object)
          ? (applyJsonPatch(object as unknown as Json, operations) as unknown as K8sObject)
          : object,
      );
    } else {
      throw new Error(`${dir}: unsupported patch ${JSON.stringify(entry)}`);
    }
  }
  return result;
}

/**
 * Renders a kustomization directory as `kubectl kustomize` would, for the fields listed in
 * SUPPORTED_FIELDS: resources (files and directories), patches (strategic merge files, JSON 6902
 * with a target), labels (metadata only), namespace and images. Anything else throws.
 */
export function renderKustomization(dir: string): K8sObject[] {
  const file = join(dir, 'kustomization.yaml');
  const [kustomization] = loadYamlFile(file);
  if (!isObject(kustomization)) throw new Error(`${file}: empty`);
  for (const field of Object.keys(kustomization)) {
    if (!SUPPORTED_FIELDS.has(field)) throw new Error(`${file}: ${field} is not supported here`);
  }
  let objects: K8sObject[] = [];
  for (const resource of (kustomization['resources'] ?? []) as string[]) {
    const path = join(dir, resource);
    objects.push(
      ...(statSync(path).isDirectory()
        ? renderKustomization(path)
        : loadYamlFile(path).map((value) => asObject(value, path))),
    );
  }
  objects = applyPatches(objects, kustomization['patches'], dir);

  for (const label of (kustomization['labels'] ?? []) as JsonObject[]) {
    if (label['includeSelectors'] || label['includeTemplates']) {
      throw new Error(`${file}: labels into selectors or templates are not supported here`);
    }
    for (const object of objects) {
      object.metadata.labels = { ...object.metadata.labels, ...(label['pairs'] as object) };
    }
  }
  const namespace = kustomization['namespace'];
  if (typeof namespace === 'string') {
    for (const object of objects) {
      if (!CLUSTER_SCOPED.has(object.kind)) object.metadata.namespace = namespace;
    }
  }
  for (const image of (kustomization['images'] ?? []) as JsonObject[]) {
    let used = false;
    for (const container of objects.flatMap(containersOf)) {
      const current = String(container['image']);
      const name = current.replace(/:[^/:]+$/, '');
      if (name !== image['name']) continue;
      const tag = current.slice(name.length + 1);
      const newTag = (image['newTag'] as string | undefined) ?? tag;
      container['image'] =
        `${(image['newName'] as string | undefined) ?? name}${newTag ? `:${newTag}` : ''}`;
      used = true;
    }
    if (!used) throw new Error(`${file}: no container uses image ${String(image['name'])}`);
  }

  const seen = new Set<string>();
  for (const object of objects) {
    const key = `${object.kind}/${object.metadata.name}`;
    if (seen.has(key)) throw new Error(`${dir}: ${key} twice`);
    seen.add(key);
  }
  return objects;
}
