import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { randomBytes } from 'node:crypto';
import { startTestRuntime } from './runtimes';
import { testNatsUrl } from './services';

async function streamNamesOnServer(): Promise<string[]> {
  const nc = await connect({ servers: testNatsUrl() });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    return names;
  } finally {
    await nc.close();
  }
}

describe('startTestRuntime on the distributed runtime', () => {
  it('leaves none of its streams, KV or object buckets on the shared NATS server', async () => {
    const probe = randomBytes(4).toString('hex');
    const runtime = await startTestRuntime('distributed', { serviceName: 'cleanup-spec' });
    await runtime.platform.streams.ensureStream({
      name: `PROBE_${probe.toUpperCase()}`,
      subjects: [`probe.${probe}.>`],
    });
    await (await runtime.platform.kv.bucket(`probe_${probe}`)).put('k', new Uint8Array([1]));
    await runtime.platform.objects.put(
      `probeobj_${probe}`,
      'o',
      (async function* () {
        yield new Uint8Array([1]);
      })(),
    );
    const made = (await streamNamesOnServer()).filter((name) => name.toLowerCase().includes(probe));
    expect(made).toHaveLength(3);

    await runtime.cleanup();

    const left = (await streamNamesOnServer()).filter((name) => name.toLowerCase().includes(probe));
    expect(left).toEqual([]);
  });
});
