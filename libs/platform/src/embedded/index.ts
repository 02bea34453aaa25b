import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock, IdSource, Platform } from '../platform';
import { createEmbeddedBus } from './bus';
import { lockDataDir } from './data-dir-lock';
import { createEmbeddedKv } from './kv';
import { createEmbeddedObjects } from './objects';
import { createEmbeddedSql } from './sql';
import { createEmbeddedStreams } from './streams';

export interface EmbeddedPlatformOptions {
  /** Folder that holds everything the platform stores; one process at a time may open it. */
  dataDir: string;
  logger: Logger;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Defaults to random UUIDs. */
  ids?: IdSource;
}

/**
 * The whole platform in one process: bus, streams, KV and objects persisted under `dataDir`
 * (every acknowledged write is fsynced), SQL in PGlite at `<dataDir>/pglite`.
 */
export async function createEmbeddedPlatform(options: EmbeddedPlatformOptions): Promise<Platform> {
  const { dataDir } = options;
  const logger = options.logger.child({ component: 'embedded-platform' });
  const unlock = await lockDataDir(dataDir);
  try {
    const bus = createEmbeddedBus(logger);
    const streams = await createEmbeddedStreams(dataDir, logger);
    const kv = createEmbeddedKv(dataDir, logger);
    const objects = createEmbeddedObjects(dataDir);
    const sql = await createEmbeddedSql(dataDir);
    let open = true;

    return {
      runtime: 'embedded',
      bus,
      streams,
      kv,
      objects,
      sql,
      clock: options.clock ?? { now: () => new Date() },
      ids: options.ids ?? { uuid: () => randomUUID() },
      isReady: () => open,
      async close() {
        if (!open) return;
        open = false;
        await bus.close();
        await streams.close();
        await kv.close();
        await objects.close();
        await sql.close();
        await unlock();
      },
    };
  } catch (error) {
    await unlock();
    throw error;
  }
}
