import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * Deletes the streams, KV and object buckets a namespaced run left on the NATS server (see
 * `withNamespace` for their names). The server is shared by every test run and bench on the
 * machine: without this, each run's assets stayed on it for good.
 */
export async function removeNamespaceFromNats(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    const jsm = await jetstreamManager(nc);
    const prefixes = [`${namespace.toUpperCase()}_`, `KV_${namespace}_`, `OBJ_${namespace}_`];
    const owned: string[] = [];
    for await (const name of jsm.streams.names()) {
      if (prefixes.some((prefix) => name.startsWith(prefix))) owned.push(name);
    }
    for (const name of owned) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}
