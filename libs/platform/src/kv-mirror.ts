import type { Logger } from 'pino';
import type { z } from 'zod';
import { decodeJson } from './json-codec';
import type { Kv, KvEntry, KvWatchEvent } from './platform';

/**
 * A local copy of a KV bucket published by another service, kept current by a watch, so the
 * hot path reads a map instead of making a network round trip. Created once the bucket's
 * current content has been read.
 */
export interface KvMirror<Value> {
  /** The cached value; undefined when unknown. */
  cached(key: string): Value | undefined;
  /** The value read from KV itself (and cached): for when the watch may lag a fresh write. */
  confirmed(key: string): Promise<Value | undefined>;
  stop(): Promise<void>;
}

export async function createKvMirror<Schema extends z.ZodType>(deps: {
  kv: Kv;
  bucket: string;
  schema: Schema;
  logger: Logger;
  /** Only keys that start with it are kept (the bucket may hold other kinds of entries). */
  keyPrefix?: string;
}): Promise<KvMirror<z.infer<Schema>>> {
  const keyPrefix = deps.keyPrefix ?? '';
  const values = new Map<string, z.infer<Schema>>();
  const bucket = await deps.kv.view(deps.bucket);

  function store(entry: KvEntry): void {
    if (!entry.key.startsWith(keyPrefix)) return;
    let decoded: unknown;
    try {
      decoded = decodeJson(entry.value);
    } catch {
      decoded = undefined;
    }
    const parsed = deps.schema.safeParse(decoded);
    if (!parsed.success) {
      // A value this version cannot read must not erase what it knew: keep the last good one.
      deps.logger.warn(
        { bucket: deps.bucket, key: entry.key },
        'ignoring an entry that does not parse',
      );
      return;
    }
    values.set(entry.key, parsed.data);
  }

  function apply(event: KvWatchEvent): void {
    if (event.kind === 'put') store(event.entry);
    else values.delete(event.key);
  }

  let markReady: () => void = () => undefined;
  const replayed = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const watcher = await bucket.watch(apply, () => markReady());
  await replayed;
  let stopped: Promise<void> | undefined;

  return {
    cached: (key) => values.get(key),
    async confirmed(key) {
      const entry = await bucket.get(key);
      if (entry) store(entry);
      else values.delete(key);
      return values.get(key);
    },
    stop() {
      stopped ??= watcher.stop();
      return stopped;
    },
  };
}
