import { createHash, randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ObjectInfo, ObjectStore } from '../platform';
import { replaceFileDurably, syncDirectory } from './durable-log';
import { assertValidName } from './subjects';

/** The metadata file of an object; it names the data file, so switching versions is one rename. */
interface ObjectMeta {
  name: string;
  size: number;
  contentType?: string;
  dataFile: string;
}

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

/** Objects as files under `<dataDir>/objects/<bucket>/`: `<key>.json` metadata and data files. */
export function createEmbeddedObjects(dataDir: string): ObjectStore {
  const root = path.join(dataDir, 'objects');

  function bucketFolder(bucket: string): string {
    assertValidName('object bucket', bucket);
    return path.join(root, bucket);
  }

  async function readMeta(bucket: string, name: string): Promise<ObjectMeta | null> {
    const text = await fsp
      .readFile(path.join(bucketFolder(bucket), `${fileKey(name)}.json`), 'utf8')
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return null;
        throw error;
      });
    return text === null ? null : (JSON.parse(text) as ObjectMeta);
  }

  return {
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

      const previous = await readMeta(bucket, name);
      const stored: ObjectMeta = {
        name,
        size,
        dataFile,
        ...(meta?.contentType === undefined ? {} : { contentType: meta.contentType }),
      };
      await replaceFileDurably(path.join(folder, `${key}.json`), JSON.stringify(stored));
      if (previous) await fsp.rm(path.join(folder, previous.dataFile), { force: true });
      return infoOf(bucket, stored);
    },

    async get(bucket, name) {
      const meta = await readMeta(bucket, name);
      if (!meta) return null;
      return {
        info: infoOf(bucket, meta),
        content: readData(path.join(bucketFolder(bucket), meta.dataFile), `${bucket}/${name}`),
      };
    },

    async info(bucket, name) {
      const meta = await readMeta(bucket, name);
      return meta ? infoOf(bucket, meta) : null;
    },

    async delete(bucket, name) {
      const meta = await readMeta(bucket, name);
      if (!meta) return;
      const folder = bucketFolder(bucket);
      await fsp.rm(path.join(folder, `${fileKey(name)}.json`), { force: true });
      await syncDirectory(folder);
      await fsp.rm(path.join(folder, meta.dataFile), { force: true });
    },
  };
}
