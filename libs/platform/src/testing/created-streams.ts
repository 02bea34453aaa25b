import {
  JetStreamApiCodes,
  JetStreamApiError,
  jetstreamManager,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Platform } from '../platform';

/**
 * `platform`, adding to `created` the JetStream name of every stream, KV bucket (`KV_<bucket>`)
 * and object bucket (`OBJ_<bucket>`) it is asked for. A spec on the shared NATS server deletes
 * exactly these afterwards: other runs use the server at the same time, with names of the same
 * patterns. Names are noted before the call, so that one failing halfway is deleted too.
 */
export function recordingCreatedStreams(platform: Platform, created: Set<string>): Platform {
  const { streams, kv, objects } = platform;
  const objectBucket = (bucket: string): string => {
    created.add(`OBJ_${bucket}`);
    return bucket;
  };
  const recording = Object.create(platform) as Platform;
  // Whole interfaces rather than the creating methods alone: a method added to one of them
  // fails to compile here until it is decided whether it creates something.
  recording.streams = {
    ensureStream: (config) => {
      created.add(config.name);
      return streams.ensureStream(config);
    },
    publish: (subject, data, options) => streams.publish(subject, data, options),
    consume: (config, handler) => streams.consume(config, handler),
    pending: (stream, durable) => streams.pending(stream, durable),
  };
  recording.kv = {
    bucket: (name, options) => {
      created.add(`KV_${name}`);
      return kv.bucket(name, options);
    },
    view: (name) => kv.view(name),
  };
  // Every object store call opens its bucket, which creates it when missing.
  recording.objects = {
    ensureBucket: (bucket, options) => objects.ensureBucket(objectBucket(bucket), options),
    put: (bucket, name, content, meta) => objects.put(objectBucket(bucket), name, content, meta),
    get: (bucket, name) => objects.get(objectBucket(bucket), name),
    info: (bucket, name) => objects.info(objectBucket(bucket), name),
    delete: (bucket, name) => objects.delete(objectBucket(bucket), name),
  };
  return recording;
}

async function withJetStreamManager<T>(
  natsUrl: string,
  use: (jsm: JetStreamManager) => Promise<T>,
): Promise<T> {
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    return await use(await jetstreamManager(nc));
  } finally {
    await nc.close();
  }
}

/** Deletes the named streams from the server; answers those it did not hold. */
export function deleteStreams(natsUrl: string, names: Iterable<string>): Promise<string[]> {
  return withJetStreamManager(natsUrl, async (jsm) => {
    const absent: string[] = [];
    for (const name of names) {
      try {
        await jsm.streams.delete(name);
      } catch (error) {
        const notFound =
          error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
        if (!notFound) throw error;
        absent.push(name);
      }
    }
    return absent;
  });
}

export function streamNamesOnServer(natsUrl: string): Promise<string[]> {
  return withJetStreamManager(natsUrl, async (jsm) => {
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    return names;
  });
}
