import type { JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type {
  Objm,
  ObjectInfo as NatsObjectInfo,
  ObjectStore as NatsObjectStore,
} from '@nats-io/obj';
import type { ObjectInfo, ObjectStore } from '../platform';
import { retryingSetupTimeouts, untilStreamLeader } from './setup-retry';

/** JetStream's default, which object buckets keep; it may not exceed a bucket's max age. */
const OBJECT_DUPLICATE_WINDOW_MS = 120_000;

function toInfo(info: NatsObjectInfo): ObjectInfo {
  const contentType = info.metadata?.['content-type'];
  return {
    bucket: info.bucket,
    name: info.name,
    size: info.size,
    ...(contentType ? { contentType } : {}),
  };
}

/** Pulls from the iterable only when the object store asks for the next chunk. */
function toReadableStream(content: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = content[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

async function* fromReadableStream(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        finished = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // A reader that stops early cancels the stream, which stops the chunk consumer behind it.
    if (!finished) await reader.cancel();
    reader.releaseLock();
  }
}

export function createNatsObjectStore(
  objm: Objm,
  jsm: JetStreamManager,
  replicas: number,
): ObjectStore {
  const stores = new Map<string, Promise<NatsObjectStore>>();
  const store = (bucket: string): Promise<NatsObjectStore> => {
    let opened = stores.get(bucket);
    if (!opened) {
      // Objm.create opens the bucket when it exists and creates it otherwise.
      opened = retryingSetupTimeouts(() => objm.create(bucket, { replicas }));
      void opened.catch(() => stores.delete(bucket));
      stores.set(bucket, opened);
    }
    return opened;
  };

  return {
    async ensureBucket(bucket, options = {}) {
      const maxAgeMs = options.maxAgeMs ?? 0;
      const { streamInfo } = await retryingSetupTimeouts(async () =>
        (await store(bucket)).status(),
      );
      await untilStreamLeader(jsm, streamInfo.config.name);
      // Objm.create keeps an existing bucket as it is; its max age is applied to its stream here.
      if (streamInfo.config.max_age === nanos(maxAgeMs)) return;
      await jsm.streams.update(streamInfo.config.name, {
        max_age: nanos(maxAgeMs),
        duplicate_window: nanos(
          maxAgeMs > 0
            ? Math.min(maxAgeMs, OBJECT_DUPLICATE_WINDOW_MS)
            : OBJECT_DUPLICATE_WINDOW_MS,
        ),
      });
    },

    async put(bucket, name, content, meta) {
      const objects = await store(bucket);
      const info = await objects.put(
        { name, ...(meta?.contentType ? { metadata: { 'content-type': meta.contentType } } : {}) },
        toReadableStream(content),
      );
      return toInfo(info);
    },

    async get(bucket, name) {
      const result = await (await store(bucket)).get(name);
      if (!result) return null;
      // A failed transfer also errors the data stream, where the reader sees it; this promise
      // reports the same failure again and must not become an unhandled rejection.
      void result.error.catch(() => undefined);
      return { info: toInfo(result.info), content: fromReadableStream(result.data) };
    },

    async info(bucket, name) {
      const info = await (await store(bucket)).info(name);
      return info && !info.deleted ? toInfo(info) : null;
    },

    async delete(bucket, name) {
      await (await store(bucket)).delete(name);
    },
  };
}
