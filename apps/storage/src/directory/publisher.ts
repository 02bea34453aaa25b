import type { Logger } from 'pino';
import { directoryKey } from '@wap/contracts';
import { encodeJson, KvConflictError, type KvBucket } from '@wap/platform';
import type { DirectoryRepository } from './repository';

/** How many workspaces are republished at once at start. */
const REPUBLISH_CONCURRENCY = 16;
/** Compare-and-set retries before giving up on one publish (each retry re-reads the database). */
const MAX_PUBLISH_ATTEMPTS = 10;

export interface DirectoryPublisher {
  /** Writes the workspace's current state (name, deleted, members) to the `directory` bucket. */
  publish(workspaceId: string): Promise<void>;
  /** Republishes every workspace, deleted ones included, so a fresh bucket is filled. */
  publishAll(): Promise<void>;
}

export function createDirectoryPublisher(deps: {
  bucket: KvBucket;
  repository: DirectoryRepository;
  logger: Logger;
}): DirectoryPublisher {
  const { bucket, repository, logger } = deps;

  /**
   * Replicas publish concurrently, so a plain put could let a stale read overwrite a fresher one.
   * The entry's revision is read before the database and the write is a compare-and-set: a
   * publisher whose read may be stale loses the race and reads again.
   */
  async function publish(workspaceId: string): Promise<void> {
    const key = directoryKey(workspaceId);
    for (let attempt = 1; attempt <= MAX_PUBLISH_ATTEMPTS; attempt += 1) {
      const current = await bucket.get(key);
      const entry = await repository.directoryEntry(workspaceId);
      if (!entry) return;
      try {
        if (current) await bucket.update(key, encodeJson(entry), current.revision);
        else await bucket.create(key, encodeJson(entry));
        return;
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
    throw new Error(`directory entry of ${workspaceId} kept changing while being published`);
  }

  return {
    publish,
    async publishAll() {
      const ids = await repository.listWorkspaceIds();
      for (let start = 0; start < ids.length; start += REPUBLISH_CONCURRENCY) {
        await Promise.all(ids.slice(start, start + REPUBLISH_CONCURRENCY).map(publish));
      }
      logger.info({ workspaces: ids.length }, 'directory republished');
    },
  };
}
