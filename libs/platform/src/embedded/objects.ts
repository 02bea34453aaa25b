import { createHash, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ObjectBucketOptions, ObjectInfo, ObjectStore } from '../platform';
import { replaceFileDurably, syncDirectory } from './durable-log';
import { assertValidName } from './subjects';

/** The metadata file of an object; it names the data file, so switching versions is one rename. */
interface ObjectMeta {
  name: string;
  size: number;
  contentType?: string;
  dataFile: string;
  /** When the object was put (epoch ms), for the bucket's max age. */
  storedAtMs: number;
}

/** Expired objects are removed this often at most; reads already treat them as gone. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

/** Object names are hashed into file names: any name is allowed and none can leave the folder. */
function fileKey(name: string): string {
  return createHash('sha256').update(name).digest('hex');
}

function infoOf(bucket: string, meta: ObjectMeta): ObjectInfo {
  return {
    bucket,
    name: meta.name,
    size: meta.size,
    ...(meta.contentType === undefined ? {} : { contentType: meta.contentType }),
  };
}

/**
 * Streams a data file, opened only when the reader starts pulling so that a caller who never
 * reads holds no file handle. A put or delete in between removes the old file: that read fails.
 */
async function* readData(filePath: string, objectName: string): AsyncIterable<Uint8Array> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(filePath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`object ${objectName} was replaced or deleted while being read`);
    }
    throw error;
  }
  try {
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      yield chunk as Buffer;
    }
  } finally {
    await handle.close();
  }
}

/**
 * Objects as files under `<dataDir>/objects/<bucket>/`: `<key>.json` metadata and data files.
 * A bucket's options are kept beside its folder, in `<bucket>.json`, as KV buckets' are.
 */
/* eslint-disable-next-line max-lines-per-function --
  an adapter: one short method per ObjectStore operation over the one store */
export function createEmbeddedObjects(dataDir: string): ObjectStore & { close(): Promise<void> } {
  const root = path.join(dataDir, 'objects');
  const maxAges = new Map<string, Promise<number | undefined>>();
  const sweepers = new Map<string, NodeJS.Timeout>();
  /** The sweep running per bucket: a slow one is not joined by the next. */
  const sweeps = new Map<string, Promise<void>>();
  /** The last change queued per object: its changes run one at a time. */
  const changes = new Map<string, Promise<void>>();

  function bucketFolder(bucket: string): string {
    assertValidName('object bucket', bucket);
    return path.join(root, bucket);
  }

  /** An object's metadata file; `key` is `fileKey` of its name. */
  function metaPath(bucket: string, key: string): string {
    return path.join(bucketFolder(bucket), `${key}.json`);
  }

  /**
   * Changes of one object's metadata run one at a time, so that a sweep that found a version
   * expired never removes a newer one put meanwhile.
   */
  function oneAtATime<T>(bucket: string, key: string, change: () => Promise<T>): Promise<T> {
    const object = `${bucket}/${key}`;
    const result = (changes.get(object) ?? Promise.resolve()).then(change);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    changes.set(object, settled);
    void settled.then(() => {
      if (changes.get(object) === settled) changes.delete(object);
    });
    return result;
  }

  function maxAgeOf(bucket: string): Promise<number | undefined> {
    let known = maxAges.get(bucket);
    if (!known) {
      known = fsp
        .readFile(path.join(root, `${bucket}.json`), 'utf8')
        .then((saved) => (JSON.parse(saved) as { maxAgeMs: number | null }).maxAgeMs ?? undefined)
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return undefined;
          throw error;
        });
      maxAges.set(bucket, known);
      void known.catch(() => maxAges.delete(bucket));
    }
    return known;
  }

  async function readMeta(bucket: string, key: string): Promise<ObjectMeta | null> {
    const text = await fsp
      .readFile(metaPath(bucket, key), 'utf8')
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
    if (text === null) return null;
    const meta = JSON.parse(text) as Partial<ObjectMeta> & Omit<ObjectMeta, 'storedAtMs'>;
    if (meta.storedAtMs !== undefined) return { ...meta, storedAtMs: meta.storedAtMs };
    // Objects put before their time was recorded count from their metadata file's last write.
    const written = await fsp.stat(metaPath(bucket, key)).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    return written ? { ...meta, storedAtMs: written.mtimeMs } : null;
  }

  async function isExpired(bucket: string, meta: ObjectMeta): Promise<boolean> {
    const maxAgeMs = await maxAgeOf(bucket);
    return maxAgeMs !== undefined && Date.now() - meta.storedAtMs >= maxAgeMs;
  }

  /** The object's metadata, or null when it is missing or older than the bucket's max age. */
  async function liveMeta(bucket: string, name: string): Promise<ObjectMeta | null> {
    const meta = await readMeta(bucket, fileKey(name));
    return meta && !(await isExpired(bucket, meta)) ? meta : null;
  }

  async function remove(bucket: string, key: string, meta: ObjectMeta): Promise<void> {
    const folder = bucketFolder(bucket);
    await fsp.rm(metaPath(bucket, key), { force: true });
    await syncDirectory(folder);
    await fsp.rm(path.join(folder, meta.dataFile), { force: true });
  }

  async function sweep(bucket: string): Promise<void> {
    const folder = bucketFolder(bucket);
    const files = await fsp.readdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const file of files) {
      if (!file.endsWith('.json')) continue;
      const key = file.slice(0, -'.json'.length);
      await oneAtATime(bucket, key, async () => {
        const meta = await readMeta(bucket, key);
        if (meta && (await isExpired(bucket, meta))) await remove(bucket, key, meta);
      });
    }
  }

  function scheduleSweeps(bucket: string, maxAgeMs: number | undefined): void {
    clearInterval(sweepers.get(bucket));
    sweepers.delete(bucket);
    if (maxAgeMs === undefined) return;
    const timer = setInterval(
      () => {
        if (sweeps.has(bucket)) return;
        const running = sweep(bucket)
          // A failed sweep is retried by the next one; reads skip expired objects meanwhile.
          .catch(() => undefined)
          .finally(() => sweeps.delete(bucket));
        sweeps.set(bucket, running);
      },
      Math.min(maxAgeMs, MAX_SWEEP_INTERVAL_MS),
    );
    timer.unref();
    sweepers.set(bucket, timer);
  }

  return {
    async ensureBucket(bucket, options: ObjectBucketOptions = {}) {
      // 0 is no limit, as a stream's max_age of 0 is on NATS.
      const maxAgeMs = options.maxAgeMs || undefined;
      await fsp.mkdir(bucketFolder(bucket), { recursive: true });
      await replaceFileDurably(
        path.join(root, `${bucket}.json`),
        JSON.stringify({ maxAgeMs: maxAgeMs ?? null }),
      );
      maxAges.set(bucket, Promise.resolve(maxAgeMs));
      scheduleSweeps(bucket, maxAgeMs);
    },

    async put(bucket, name, content, meta) {
      const folder = bucketFolder(bucket);
      await fsp.mkdir(folder, { recursive: true });
      const key = fileKey(name);
      const dataFile = `${key}.${randomUUID()}.data`;
      const handle = await fsp.open(path.join(folder, dataFile), 'w');
      let size = 0;
      try {
        for await (const chunk of content) {
          await handle.write(chunk);
          size += chunk.length;
        }
        await handle.sync();
      } catch (error) {
        await handle.close();
        await fsp.rm(path.join(folder, dataFile), { force: true });
        throw error;
      }
      await handle.close();

      const stored: ObjectMeta = {
        name,
        size,
        dataFile,
        storedAtMs: Date.now(),
        ...(meta?.contentType === undefined ? {} : { contentType: meta.contentType }),
      };
      await oneAtATime(bucket, key, async () => {
        const previous = await readMeta(bucket, key);
        await replaceFileDurably(metaPath(bucket, key), JSON.stringify(stored));
        if (previous) await fsp.rm(path.join(folder, previous.dataFile), { force: true });
      });
      return infoOf(bucket, stored);
    },

    async get(bucket, name) {
      const meta = await liveMeta(bucket, name);
      if (!meta) return null;
      return {
        info: infoOf(bucket, meta),
        content: readData(path.join(bucketFolder(bucket), meta.dataFile), `${bucket}/${name}`),
      };
    },

    async info(bucket, name) {
      const meta = await liveMeta(bucket, name);
      return meta ? infoOf(bucket, meta) : null;
    },

    async delete(bucket, name) {
      const key = fileKey(name);
      await oneAtATime(bucket, key, async () => {
        const meta = await readMeta(bucket, key);
        if (meta) await remove(bucket, key, meta);
      });
    },

    async close() {
      for (const timer of sweepers.values()) clearInterval(timer);
      sweepers.clear();
      await Promise.all(sweeps.values());
    },
  };
}
