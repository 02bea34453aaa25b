// `npm run bus:credentials -- <dir> [options]`: a fresh set of bus credentials (decision 113),
// written to <dir> (mode 0700, files 0600; keep it out of version control):
//   <principal>.env          BUS_SIGNING_KEY, BUS_TRUSTED_KEYS and NATS_NKEY_SEED of the gateway,
//                            each service and the admin CLI (`set -a; . <dir>/storage.env; set +a`)
//   nats-server.conf         a server that admits only those principals, each with the
//                            permissions the subject registry derives
//   nats-auth.conf           the accounts block alone (the platform's account, public keys only), for the NATS Helm
//                            chart's ConfigMap include (deploy/k8s/nats/values.yaml)
//   kubernetes-secrets.yaml  one Secret `<principal>-bus` per principal, for `kubectl apply`
// Options: --namespace NS (NATS_NAMESPACE), --host H (127.0.0.1), --port N (4222),
// --store DIR (<dir>/jetstream), --monitor-port N (HTTP monitoring, off by default),
// --key-version V (the kids' version, 1; a rotation issues a new version beside the old).
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUS_PRINCIPALS } from '@wap/contracts';
import { natsAuthorization, natsServerConfig } from '@wap/platform';
import { createBusCredentials } from '@wap/service-runtime';

const USAGE =
  'usage: npm run bus:credentials -- <dir> [--namespace NS] [--host H] [--port N] ' +
  '[--store DIR] [--monitor-port N] [--key-version V]';

function writeSecretFile(file: string, content: string): void {
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

function main(): void {
  const args = process.argv.slice(2);
  const option = (name: string) => {
    const index = args.indexOf(name);
    if (index < 0) return undefined;
    const value = args[index + 1];
    if (!value) throw new Error(`${name} needs a value\n${USAGE}`);
    args.splice(index, 2);
    return value;
  };
  const namespace = option('--namespace');
  const host = option('--host') ?? '127.0.0.1';
  const port = Number(option('--port') ?? '4222');
  const store = option('--store');
  const monitor = option('--monitor-port');
  const version = option('--key-version') ?? '1';
  const [dir, ...rest] = args;
  const monitorPort = monitor === undefined ? undefined : Number(monitor);
  if (!dir || rest.length > 0 || !Number.isInteger(port)) throw new Error(USAGE);
  if (monitorPort !== undefined && !Number.isInteger(monitorPort)) throw new Error(USAGE);
  const out = resolve(dir);
  mkdirSync(out, { recursive: true, mode: 0o700 });
  chmodSync(out, 0o700);
  const credentials = createBusCredentials(version);
  const secrets: string[] = [];
  for (const principal of BUS_PRINCIPALS) {
    const env = credentials.environmentOf(principal);
    // Single quotes: the JSON values hold no single quote, and a shell reads them as they are.
    const lines = Object.entries(env).map(([name, value]) => `${name}='${value}'`);
    writeSecretFile(join(out, `${principal}.env`), `${lines.join('\n')}\n`);
    secrets.push(
      [
        'apiVersion: v1',
        'kind: Secret',
        `metadata: { name: ${principal}-bus }`,
        'type: Opaque',
        'stringData:',
        ...Object.entries(env).map(([name, value]) => `  ${name}: ${JSON.stringify(value)}`),
      ].join('\n'),
    );
  }
  writeSecretFile(join(out, 'kubernetes-secrets.yaml'), `${secrets.join('\n---\n')}\n`);
  writeSecretFile(
    join(out, 'nats-server.conf'),
    natsServerConfig({
      users: credentials.natsUsers,
      host,
      port,
      monitorPort,
      storeDir: store ?? join(out, 'jetstream'),
      namespace,
    }),
  );
  writeFileSync(
    join(out, 'nats-auth.conf'),
    natsAuthorization(credentials.natsUsers, { namespace }),
  );
  process.stdout.write(
    `wrote the credentials of ${BUS_PRINCIPALS.join(', ')} and nats-server.conf to ${out}\n`,
  );
}

try {
  main();
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
}
