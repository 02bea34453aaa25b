import {
  CREDIT_BALANCES_BUCKET,
  RUNS_STREAM_CONFIG,
  WEBHOOK_EVENTS_STREAM_CONFIG,
  WEBHOOK_INFLIGHT_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOKS_BUCKET,
} from './automation';
import {
  EVENT_SUBJECTS,
  REQUEST_SUBJECTS,
  type BusPrincipal,
  type RequestSubjectSpec,
} from './bus-registry';
import { DEAD_LETTERS_STREAM_CONFIG } from './dead-letters';
import { DIRECTORY_BUCKET, SESSION_REVOCATIONS_BUCKET } from './directory';
import { REQUEST_BODIES_BUCKET } from './service-protocol';
import { TASK_FILES_BUCKET } from './workspace-data';

/** webhook-ingest's idempotency keys (the sender's header values). */
export const IDEMPOTENCY_BUCKET = 'webhook-idempotency';
/** webhook-ingest's replicas, each renewing its key while it lives (decision 91). */
export const REPLICAS_BUCKET = 'webhook-ingest-replicas';
/** mcp-registry's one-sync-at-a-time locks. */
export const SYNC_LOCKS_BUCKET = 'mcp-sync-locks';

/**
 * A JetStream resource and the principals that use it: a stream (its subjects are published to
 * by `publishers`), a KV bucket or an object bucket. Names are those the services use, before a
 * namespace is put in front.
 */
export type JetStreamResource =
  | {
      kind: 'stream';
      name: string;
      subjects: readonly string[];
      users: readonly BusPrincipal[];
      publishers: readonly BusPrincipal[];
    }
  | {
      kind: 'kv';
      name: string;
      /** Who writes it: its owner (and the operators' CLI). */
      users: readonly BusPrincipal[];
      /** Who only reads it (a mirror, `Kv.view`): no put, delete, purge or settings. */
      readers?: readonly BusPrincipal[];
    }
  | { kind: 'object'; name: string; users: readonly BusPrincipal[] };

export const JETSTREAM_RESOURCES: readonly JetStreamResource[] = [
  {
    kind: 'stream',
    name: WEBHOOK_EVENTS_STREAM_CONFIG.name,
    subjects: WEBHOOK_EVENTS_STREAM_CONFIG.subjects,
    // The operators' CLI replays dead letters to the subjects they came from (decision 125).
    users: ['webhook-ingest', 'workflow-runner', 'operator'],
    publishers: ['webhook-ingest', 'operator'],
  },
  {
    kind: 'stream',
    name: RUNS_STREAM_CONFIG.name,
    subjects: RUNS_STREAM_CONFIG.subjects,
    users: ['webhook-ingest', 'workflow-runner', 'operator'],
    publishers: ['webhook-ingest', 'workflow-runner', 'operator'],
  },
  {
    kind: 'stream',
    name: DEAD_LETTERS_STREAM_CONFIG.name,
    subjects: DEAD_LETTERS_STREAM_CONFIG.subjects,
    users: ['workflow-runner', 'operator'],
    publishers: ['workflow-runner'],
  },
  // Membership decides every access check: storage alone writes it (issue 41 item 4).
  {
    kind: 'kv',
    name: DIRECTORY_BUCKET,
    users: ['storage'],
    readers: ['chat', 'mcp-registry', 'workflow-runner', 'webhook-ingest', 'operator'],
  },
  {
    kind: 'kv',
    name: WEBHOOKS_BUCKET,
    users: ['workflow-runner'],
    readers: ['webhook-ingest'],
  },
  {
    kind: 'kv',
    name: CREDIT_BALANCES_BUCKET,
    users: ['workflow-runner'],
    readers: ['webhook-ingest'],
  },
  { kind: 'kv', name: WEBHOOK_INFLIGHT_BUCKET, users: ['workflow-runner', 'webhook-ingest'] },
  { kind: 'kv', name: IDEMPOTENCY_BUCKET, users: ['webhook-ingest'] },
  { kind: 'kv', name: REPLICAS_BUCKET, users: ['webhook-ingest'] },
  { kind: 'kv', name: SYNC_LOCKS_BUCKET, users: ['mcp-registry'] },
  { kind: 'kv', name: SESSION_REVOCATIONS_BUCKET, users: ['gateway'] },
  { kind: 'object', name: TASK_FILES_BUCKET, users: ['gateway', 'storage'] },
  {
    kind: 'object',
    name: REQUEST_BODIES_BUCKET,
    // workflow-runner reads and deletes the large webhook bodies its events refer to.
    users: ['gateway', 'webhook-ingest', 'mcp-registry', 'workflow-runner'],
  },
  { kind: 'object', name: WEBHOOK_PAYLOADS_BUCKET, users: ['webhook-ingest', 'workflow-runner'] },
];

/** Who may publish to a stream: what its consumers accept a signature of (decision 150). */
export function publishersOfStream(name: string): readonly BusPrincipal[] {
  for (const resource of JETSTREAM_RESOURCES) {
    if (resource.kind === 'stream' && resource.name === name) return resource.publishers;
  }
  throw new Error(`${name} is not a stream of JETSTREAM_RESOURCES`);
}

/** A NATS user's permissions, as nats-server's configuration spells them. */
export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  /** Lets a responder publish its reply to the requester's inbox, and nothing else of it. */
  allow_responses: true;
}

/** The inbox prefix of a principal's connection: replies to it reach it alone. */
export function inboxPrefixOf(principal: BusPrincipal): string {
  return `_INBOX_${principal.replace(/-/g, '_')}`;
}

/** A stream's JetStream name in a deployment's namespace (NATS_NAMESPACE), as `withNamespace` makes it. */
export function namespacedStreamName(name: string, namespace: string | undefined): string {
  return namespace ? `${namespace.toUpperCase()}_${name}` : name;
}

/** How a namespace (NATS_NAMESPACE) renames subjects, streams and buckets. */
function namer(namespace: string | undefined) {
  return {
    subject: (name: string) => (namespace ? `${namespace}.${name}` : name),
    stream: (name: string) => namespacedStreamName(name, namespace),
    bucket: (name: string) => (namespace ? `${namespace}_${name}` : name),
  };
}

/**
 * What reading a KV bucket needs of its stream's API: its info, a message by key, and the
 * ordered consumers of a watch; not publish to `$KV.<bucket>.>`, purge, delete or update.
 */
function jetStreamReadApiOf(stream: string): string[] {
  return [
    `$JS.API.STREAM.INFO.${stream}`,
    `$JS.API.STREAM.MSG.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.*.*.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/** The JetStream API, ack and flow-control subjects of one underlying stream. */
function jetStreamApiOf(stream: string): string[] {
  return [
    `$JS.API.STREAM.*.${stream}`,
    `$JS.API.STREAM.MSG.*.${stream}`,
    `$JS.API.DIRECT.GET.${stream}`,
    `$JS.API.DIRECT.GET.${stream}.>`,
    `$JS.API.CONSUMER.*.${stream}`,
    `$JS.API.CONSUMER.*.${stream}.>`,
    `$JS.API.CONSUMER.*.*.${stream}.>`,
    `$JS.ACK.${stream}.>`,
    `$JS.FC.${stream}.>`,
  ];
}

/**
 * The NATS permissions of one principal, derived from the subject registry and the JetStream
 * resources (decision 113): publish on the subjects it calls or publishes and the JetStream API
 * of the streams and buckets it uses; subscribe on the subjects it serves or listens to and its
 * own inbox. The operators' CLI also reads every stream's state.
 */
export function natsPermissions(
  principal: BusPrincipal,
  options: { namespace?: string; registry?: readonly RequestSubjectSpec[] } = {},
): NatsPermissions {
  const name = namer(options.namespace);
  const registry = options.registry ?? REQUEST_SUBJECTS;
  const publish = new Set<string>(['$JS.API.INFO']);
  const subscribe = new Set<string>([`${inboxPrefixOf(principal)}.>`]);
  for (const spec of registry) {
    const subject = name.subject(spec.perInstance ? `${spec.subject}.*` : spec.subject);
    if (spec.callers.includes(principal)) publish.add(subject);
    if (spec.server === principal) subscribe.add(subject);
  }
  for (const spec of EVENT_SUBJECTS) {
    if ((spec.publishers as readonly string[]).includes(principal)) {
      publish.add(name.subject(spec.subject));
    }
    if ((spec.subscribers as readonly string[]).includes(principal)) {
      subscribe.add(name.subject(spec.subject));
    }
  }
  for (const resource of JETSTREAM_RESOURCES) {
    if (resource.kind === 'kv' && resource.readers?.includes(principal)) {
      const bucket = name.bucket(resource.name);
      jetStreamReadApiOf(`KV_${bucket}`).forEach((subject) => publish.add(subject));
      continue;
    }
    if (!resource.users.includes(principal)) continue;
    if (resource.kind === 'stream') {
      jetStreamApiOf(name.stream(resource.name)).forEach((subject) => publish.add(subject));
      if (resource.publishers.includes(principal)) {
        resource.subjects.forEach((subject) => publish.add(name.subject(subject)));
      }
    } else {
      const bucket = name.bucket(resource.name);
      const prefix = resource.kind === 'kv' ? 'KV' : 'OBJ';
      jetStreamApiOf(`${prefix}_${bucket}`).forEach((subject) => publish.add(subject));
      publish.add(resource.kind === 'kv' ? `$KV.${bucket}.>` : `$O.${bucket}.>`);
    }
  }
  if (principal === 'operator') {
    publish.add('$JS.API.STREAM.NAMES');
    publish.add('$JS.API.STREAM.LIST');
    publish.add('$JS.API.STREAM.INFO.*');
    publish.add('$JS.API.CONSUMER.NAMES.*');
    publish.add('$JS.API.CONSUMER.LIST.*');
    publish.add('$JS.API.CONSUMER.INFO.*.*');
  }
  return {
    publish: { allow: [...publish].sort() },
    subscribe: { allow: [...subscribe].sort() },
    allow_responses: true,
  };
}
