import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import type { Kvm, KV, KvEntry as NatsKvEntry } from '@nats-io/kv';
import { nanos } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { KvConflictError } from '../errors';
import type { OpenResources } from './inflight';
import type { Kv, KvBucket, KvEntry, KvView, KvWatchEvent } from '../platform';
import { isTimeout, retryingSetupTimeouts, untilStreamLeader } from './setup-retry';

/** The duplicate window NATS gives a KV bucket without a TTL, 2 minutes. */
const KV_DUPLICATE_WINDOW_MS = 120_000;

function isWrongLastSequence(error: unknown): boolean {
  return (
    error instanceof JetStreamApiError &&
    (error.code === JetStreamApiCodes.StreamWrongLastSequence ||
      error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)
  );
}

function isLive(entry: NatsKvEntry): boolean {
  return entry.operation === 'PUT';
}

function toEntry(entry: NatsKvEntry): KvEntry {
  return { key: entry.key, value: entry.value, revision: entry.revision };
}

function toWatchEvent(entry: NatsKvEntry): KvWatchEvent {
  return isLive(entry)
    ? { kind: 'put', entry: toEntry(entry) }
    : { kind: 'delete', key: entry.key, revision: entry.revision };
}

/**
 * Opens the bucket's stream, creating it when missing, and aligns its TTL with `ttlMs`; without
 * `ttlMs` an existing bucket keeps its TTL (a new one has none), as in the embedded runtime.
 */
async function openBucket(
  kvm: Kvm,
  jsm: JetStreamManager,
  name: string,
  ttlMs: number | undefined,
  replicas: number,
): Promise<KV> {
  const kv = await retryingSetupTimeouts(() => openOrCreate(kvm, jsm, name, ttlMs, replicas));
  await untilStreamLeader(jsm, `KV_${name}`);
  return kv;
}

async function openOrCreate(
  kvm: Kvm,
  jsm: JetStreamManager,
  name: string,
  ttlMs: number | undefined,
  replicas: number,
): Promise<KV> {
  const kv = await kvm.create(name, { ttl: ttlMs ?? 0, replicas });
  if (ttlMs === undefined) return kv;
  const status = await kv.status();
  // Kvm.create keeps an existing bucket as it is; a changed TTL is applied to its stream here.
  if (status.ttl !== ttlMs) {
    await jsm.streams.update(status.streamInfo.config.name, {
      max_age: nanos(ttlMs),
      // JetStream refuses a duplicate window longer than max_age; KV buckets cap it the same way.
      duplicate_window: nanos(
        ttlMs > 0 ? Math.min(ttlMs, KV_DUPLICATE_WINDOW_MS) : KV_DUPLICATE_WINDOW_MS,
      ),
    });
  }
  return kv;
}

/** How often a reader looks for a bucket its owner has not created yet, and for how long. */
const VIEW_POLL_MS = 250;
const VIEW_WAIT_MS = 120_000;

/**
 * Binds to a bucket another service owns, once it exists, without creating it or touching its
 * settings: the reader's NATS user may read the bucket's stream and nothing more. A bucket that
 * does not appear in time fails the start, and the process is started again.
 */
async function openView(kvm: Kvm, jsm: JetStreamManager, name: string, logger: Logger) {
  const stream = `KV_${name}`;
  const deadline = Date.now() + VIEW_WAIT_MS;
  let told = false;
  for (;;) {
    // Not there yet, or JetStream busy placing it (a fresh cluster times out): look again.
    const info = await jsm.streams.info(stream).catch((error: unknown) => {
      const notFound =
        error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
      if (notFound || isTimeout(error)) return null;
      throw error;
    });
    if (info) {
      await untilStreamLeader(jsm, stream);
      return retryingSetupTimeouts(() =>
        kvm.open(name, { allow_direct: info.config.allow_direct }),
      );
    }
    if (Date.now() > deadline) {
      throw new Error(`bucket ${name} was not created by its owner within ${VIEW_WAIT_MS} ms`);
    }
    if (!told) logger.info({ bucket: name }, "waiting for the bucket's owner to create it");
    told = true;
    await new Promise((resolve) => setTimeout(resolve, VIEW_POLL_MS).unref());
  }
}

function bucketApi(name: string, kv: KV, open: OpenResources, logger: Logger): KvBucket {
  return {
    name,

    async get(key) {
      const entry = await kv.get(key);
      return entry && isLive(entry) ? toEntry(entry) : null;
    },

    async create(key, value) {
      try {
        return await kv.create(key, value);
      } catch (error) {
        if (isWrongLastSequence(error)) throw new KvConflictError(name, key);
        throw error;
      }
    },

    async update(key, value, revision) {
      // NATS rejects revision 0 outright; no live key has it, so it is a conflict like any other.
      if (revision < 1) throw new KvConflictError(name, key);
      try {
        return await kv.update(key, value, revision);
      } catch (error) {
        if (isWrongLastSequence(error)) throw new KvConflictError(name, key);
        throw error;
      }
    },

    put: (key, value) => kv.put(key, value),

    delete: (key) => kv.delete(key),

    async keys() {
      const keys: string[] = [];
      for await (const key of await kv.keys()) keys.push(key);
      return keys;
    },

    async watch(onEvent, onReady) {
      const entries = await kv.watch();
      let ready = false;
      const markReady = (): void => {
        if (ready) return;
        ready = true;
        onReady?.();
      };
      const deliver = (event: KvWatchEvent): void => {
        try {
          onEvent(event);
        } catch (error) {
          logger.error({ err: error, bucket: name }, 'kv watch handler failed');
        }
      };
      const loop = (async () => {
        try {
          for await (const entry of entries) {
            // During the replay a deleted key is not a current value: nothing to report.
            if (ready || isLive(entry)) deliver(toWatchEvent(entry));
            // `delta` is the number of messages still pending after this one: 0 ends the replay.
            if (entry.delta === 0) markReady();
          }
        } catch (error) {
          logger.error({ err: error, bucket: name }, 'kv watch ended');
        }
      })();
      // An empty bucket replays nothing, so no entry will end the replay.
      if ((await kv.status()).values === 0) markReady();
      return {
        stop: open.add(async () => {
          entries.stop();
          await loop;
        }),
      };
    },
  };
}

export function createNatsKv(
  kvm: Kvm,
  jsm: JetStreamManager,
  open: OpenResources,
  logger: Logger,
  replicas: number,
): Kv {
  const buckets = new Map<string, Promise<KvBucket>>();
  const views = new Map<string, Promise<KvView>>();
  return {
    view(name) {
      let view = views.get(name);
      if (!view) {
        view = openView(kvm, jsm, name, logger).then((kv) => bucketApi(name, kv, open, logger));
        void view.catch(() => views.delete(name));
        views.set(name, view);
      }
      return view;
    },
    bucket(name, options) {
      const ttlMs = options?.ttlMs;
      const cacheKey = `${name}:${ttlMs ?? 'as it is'}`;
      let bucket = buckets.get(cacheKey);
      if (!bucket) {
        bucket = openBucket(kvm, jsm, name, ttlMs, replicas).then((kv) =>
          bucketApi(name, kv, open, logger),
        );
        // A failed open is not cached, so the next call tries again.
        void bucket.catch(() => buckets.delete(cacheKey));
        buckets.set(cacheKey, bucket);
      }
      return bucket;
    },
  };
}
