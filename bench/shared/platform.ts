import { randomBytes } from 'node:crypto';
import { removeNamespaceFromNats } from '@wap/testing';
import { createDatabase, repoRoot, type OnCleanup } from './harness';
import { createProcessGroup, serviceLauncher } from './processes';

/**
 * What a bench of the distributed runtime starts from: a PostgreSQL database and a NATS namespace
 * of its own, and a launcher of the built services on them. Everything is removed when the bench
 * ends, the processes first (cleanups run in reverse).
 */
export async function startBenchPlatform(
  onCleanup: OnCleanup,
  options: {
    natsUrl: string;
    /** A server's admin URL: the bench creates its database there. */
    adminDatabaseUrl: string;
    /** When set, the services write V8 CPU profiles (.cpuprofile) into this folder. */
    cpuProfileDir?: string;
  },
) {
  const namespace = `bench${randomBytes(4).toString('hex')}`;
  onCleanup(() => removeNamespaceFromNats(options.natsUrl, namespace));
  const databaseUrl = await createDatabase(options.adminDatabaseUrl, namespace, onCleanup);
  const group = createProcessGroup();
  process.once('exit', () => group.killAllNow());
  onCleanup(() => group.stopAll());
  const launch = serviceLauncher(group, {
    repoRoot,
    natsUrl: options.natsUrl,
    namespace,
    cpuProfileDir: options.cpuProfileDir,
  });
  return { namespace, databaseUrl, group, launch };
}
