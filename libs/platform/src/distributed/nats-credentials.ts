import { createUser } from '@nats-io/nkeys';
import { BUS_PRINCIPALS, natsPermissions, type BusPrincipal } from '@wap/contracts';

/** One principal's NATS identity: the seed it connects with and the public key the server knows. */
export interface NatsUser {
  principal: BusPrincipal;
  /** `SU...`: secret, given to that principal's processes alone (NATS_NKEY_SEED). */
  seed: string;
  /** `U...`: public, written into the server's configuration. */
  publicKey: string;
}

/** A fresh NKey user for every bus principal (decision 113). */
export function generateNatsUsers(): NatsUser[] {
  return BUS_PRINCIPALS.map((principal) => {
    const pair = createUser();
    return {
      principal,
      seed: new TextDecoder().decode(pair.getSeed()),
      publicKey: pair.getPublicKey(),
    };
  });
}

/** A JetStream cluster's members, for a server that is one of three (or more). */
export interface NatsClusterSettings {
  name: string;
  serverName: string;
  /** `host:port` this server's route listener binds. */
  listen: string;
  /** `nats-route://host:port` of every member (its own may be included). */
  routes: readonly string[];
}

/**
 * A nats-server configuration that admits only the platform's principals, each with the
 * permissions the subject registry derives for it; a connection without credentials is refused.
 */
export function natsServerConfig(options: {
  users: readonly NatsUser[];
  host?: string;
  port: number;
  storeDir: string;
  namespace?: string;
  cluster?: NatsClusterSettings;
  /** Certificate, key and CA files: clients must then connect with `tls://`. */
  tls?: { certFile: string; keyFile: string; caFile?: string };
  /** HTTP monitoring port, for a probe of JetStream's health. */
  monitorPort?: number;
}): string {
  const lines = [
    `host: ${quote(options.host ?? '127.0.0.1')}`,
    `port: ${options.port}`,
    ...(options.monitorPort === undefined ? [] : [`http_port: ${options.monitorPort}`]),
    ...(options.cluster ? [`server_name: ${quote(options.cluster.serverName)}`] : []),
    `jetstream { store_dir: ${quote(options.storeDir)} }`,
    ...(options.cluster
      ? [
          'cluster {',
          `  name: ${quote(options.cluster.name)}`,
          `  listen: ${quote(options.cluster.listen)}`,
          `  routes: ${list(options.cluster.routes)}`,
          '}',
        ]
      : []),
    ...(options.tls
      ? [
          'tls {',
          `  cert_file: ${quote(options.tls.certFile)}`,
          `  key_file: ${quote(options.tls.keyFile)}`,
          ...(options.tls.caFile ? [`  ca_file: ${quote(options.tls.caFile)}`] : []),
          '}',
        ]
      : []),
    natsAuthorization(options.users, { namespace: options.namespace }),
  ];
  return lines.join('\n');
}

const quote = (value: string) => JSON.stringify(value);
const list = (values: readonly string[]) => `[${values.map(quote).join(', ')}]`;

/**
 * The NATS account the platform's users live in (issue 41): not the server's global account, so
 * whatever else shares the server (another application's users, a default user) neither sees
 * nor reaches the platform's subjects, streams or buckets.
 */
export const PLATFORM_NATS_ACCOUNT = 'WORKSPACE_PLATFORM';

/**
 * The `accounts` block alone: the platform's account with JetStream, and in it every principal's
 * public NKey with its permissions. It holds no secret, so a Kubernetes ConfigMap may carry it
 * (the NATS Helm chart includes it).
 */
export function natsAuthorization(
  users: readonly Pick<NatsUser, 'principal' | 'publicKey'>[],
  options: { namespace?: string } = {},
): string {
  const entries = users.map(({ principal, publicKey }) => {
    const permissions = natsPermissions(principal, { namespace: options.namespace });
    return [
      `      # ${principal}`,
      `      { nkey: ${quote(publicKey)}, permissions: {`,
      `          publish: { allow: ${list(permissions.publish.allow)} }`,
      `          subscribe: { allow: ${list(permissions.subscribe.allow)} }`,
      `          allow_responses: true`,
      `      } }`,
    ].join('\n');
  });
  return [
    'accounts {',
    `  ${PLATFORM_NATS_ACCOUNT} {`,
    '    jetstream: enabled',
    '    users: [',
    ...entries,
    '    ]',
    '  }',
    '}',
    '',
  ].join('\n');
}
