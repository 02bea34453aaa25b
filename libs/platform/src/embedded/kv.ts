import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { KvConflictError } from '../errors';
import type { Kv, KvBucket, KvBucketOptions, KvEntry, KvWatchEvent, KvWatcher } from '../platform';
import { DurableLog, replaceFileDurably } from './durable-log';
import { assertValidName } from './subjects';

/** A bucket's log: every write in revision order; a `put` with no value is a delete. */
interface KvRecord {
  revision: number;
  key: string;
  /** base64; absent for a delete */
  value?: string;
  /** epoch ms of the write, for ttlMs */
  time: number;
}

interface LiveValue {
  value: Uint8Array;
  revision: number;
  time: number;
}

/** NATS KV key rules, so that keys accepted here are accepted by the distributed runtime too. */
const KEY_PATTERN = /^[-/_=.a-zA-Z0-9]+$/;

function assertValidKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.startsWith('.') || key.endsWith('.')) {
    throw new Error(`invalid kv key "${key}"`);
  }
}

interface WatcherState {
  queue: (KvWatchEvent | 'ready')[];
  draining: boolean;
  active: boolean;
  onEvent: (event: KvWatchEvent) => void;
  onReady?: () => void;
}

const MAX_SWEEP_INTERVAL_MS = 60_000;

class EmbeddedKvBucket implements KvBucket {
  private readonly values = new Map<string, LiveValue>();
  private revision = 0;
  private readonly watchers = new Set<WatcherState>();
  private sweeper: NodeJS.Timeout | null = null;
  private compacting: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private ttlMs: number | undefined,
    private readonly log: DurableLog<KvRecord>,
    records: KvRecord[],
    private readonly logger: Logger,
  ) {
    for (const record of records) {
      this.revision = Math.max(this.revision, record.revision);
      if (record.value === undefined) this.values.delete(record.key);
      else {
        this.values.set(record.key, {
          value: Buffer.from(record.value, 'base64'),
          revision: record.revision,
          time: record.time,
        });
      }
    }
    this.startSweeper();
  }

  /**
   * Expired entries are also dropped on read; the sweep only frees their memory. At most a
   * minute apart: Node runs a timer longer than 2^31-1 ms (a bucket of 30 days' ttl) every 1 ms.
   */
  private startSweeper(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = this.ttlMs
      ? setInterval(() => this.dropExpired(), Math.min(this.ttlMs, MAX_SWEEP_INTERVAL_MS))
      : null;
    this.sweeper?.unref();
  }

  /** The log rewritten to the live values; the highest revision is kept even if its key is gone. */
  async compact(): Promise<void> {
    this.dropExpired();
    await this.log.rewrite(() => {
      const live: KvRecord[] = [...this.values].map(([key, live]) => ({
        revision: live.revision,
        key,
        value: Buffer.from(live.value).toString('base64'),
        time: live.time,
      }));
      const newest = Math.max(0, ...live.map((record) => record.revision));
      if (newest < this.revision) live.push({ revision: this.revision, key: '', time: Date.now() });
      return live.sort((a, b) => a.revision - b.revision);
    });
  }

  /** Compacts once the log holds more replaced or deleted records than live ones. */
  private compactIfDue(): void {
    if (this.compacting) return;
    if (!this.log.worthCompacting(this.values.size)) return;
    this.compacting = this.compact()
      .catch((error: unknown) => {
        this.logger.error({ err: error, bucket: this.name }, 'compacting a kv log failed');
      })
      .finally(() => {
        this.compacting = null;
      });
  }

  private expired(live: LiveValue, now = Date.now()): boolean {
    return this.ttlMs !== undefined && this.ttlMs > 0 && now - live.time >= this.ttlMs;
  }

  /** NATS drops expired entries silently (no delete event to watchers); so do we. */
  private dropExpired(): void {
    const now = Date.now();
    for (const [key, live] of this.values) {
      if (this.expired(live, now)) this.values.delete(key);
    }
  }

  private current(key: string): LiveValue | null {
    const live = this.values.get(key);
    if (!live) return null;
    if (this.expired(live)) {
      this.values.delete(key);
      return null;
    }
    return live;
  }

  async get(key: string): Promise<KvEntry | null> {
    assertValidKey(key);
    const live = this.current(key);
    return live ? { key, value: new Uint8Array(live.value), revision: live.revision } : null;
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    assertValidKey(key);
    if (this.current(key)) throw new KvConflictError(this.name, key);
    return this.write(key, value);
  }

  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    assertValidKey(key);
    if (this.current(key)?.revision !== revision) throw new KvConflictError(this.name, key);
    return this.write(key, value);
  }

  async put(key: string, value: Uint8Array): Promise<number> {
    assertValidKey(key);
    return this.write(key, value);
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    await this.write(key, null);
  }

  async keys(): Promise<string[]> {
    this.dropExpired();
    return [...this.values.keys()];
  }

  async watch(onEvent: (event: KvWatchEvent) => void, onReady?: () => void): Promise<KvWatcher> {
    this.dropExpired();
    const replay: KvWatchEvent[] = [...this.values]
      .sort(([, a], [, b]) => a.revision - b.revision)
      .map(([key, live]) => ({
        kind: 'put',
        entry: { key, value: new Uint8Array(live.value), revision: live.revision },
      }));
    const watcher: WatcherState = {
      queue: [...replay, 'ready'],
      draining: false,
      active: true,
      onEvent,
      onReady,
    };
    this.watchers.add(watcher);
    this.drain(watcher);
    return {
      stop: async () => {
        watcher.active = false;
        this.watchers.delete(watcher);
      },
    };
  }

  stopWatchers(): void {
    for (const watcher of this.watchers) watcher.active = false;
    this.watchers.clear();
    if (this.sweeper) clearInterval(this.sweeper);
  }

  setTtl(ttlMs: number | undefined): void {
    this.ttlMs = ttlMs;
    this.startSweeper();
  }

  /**
   * The value is visible at once (so that a concurrent create sees the claim) and the call
   * resolves once the log is on disk; watchers hear of it only then.
   */
  private async write(key: string, value: Uint8Array | null): Promise<number> {
    this.revision += 1;
    const revision = this.revision;
    const time = Date.now();
    if (value === null) this.values.delete(key);
    else this.values.set(key, { value: new Uint8Array(value), revision, time });
    await this.log.append({
      revision,
      key,
      ...(value === null ? {} : { value: Buffer.from(value).toString('base64') }),
      time,
    });
    this.compactIfDue();
    const event: KvWatchEvent =
      value === null
        ? { kind: 'delete', key, revision }
        : { kind: 'put', entry: { key, value: new Uint8Array(value), revision } };
    for (const watcher of this.watchers) {
      watcher.queue.push(event);
      this.drain(watcher);
    }
    return revision;
  }

  /** Delivers a watcher's events in order, never inside the call that caused them. */
  private drain(watcher: WatcherState): void {
    if (watcher.draining) return;
    watcher.draining = true;
    setImmediate(() => {
      watcher.draining = false;
      for (const item of watcher.queue.splice(0)) {
        if (!watcher.active) return;
        try {
          if (item === 'ready') watcher.onReady?.();
          else watcher.onEvent(item);
        } catch (error) {
          this.logger.error({ err: error, bucket: this.name }, 'kv watcher failed');
        }
      }
    });
  }

  async close(): Promise<void> {
    this.stopWatchers();
    await this.compacting;
    await this.log.close();
  }
}

/** KV buckets persisted as one append-only log each under `<dataDir>/kv/`. */
export function createEmbeddedKv(dataDir: string, logger: Logger): Kv & { close(): Promise<void> } {
  const root = path.join(dataDir, 'kv');
  const buckets = new Map<string, Promise<EmbeddedKvBucket>>();

  /** The bucket's ttl is part of its persisted config, as in NATS: given options replace it. */
  async function bucketTtl(
    name: string,
    options: KvBucketOptions | undefined,
  ): Promise<number | undefined> {
    const configPath = path.join(root, `${name}.json`);
    if (options) {
      await replaceFileDurably(configPath, JSON.stringify({ ttlMs: options.ttlMs ?? null }));
      return options.ttlMs;
    }
    const saved = await fsp.readFile(configPath, 'utf8').catch(() => null);
    if (saved === null) return undefined;
    const { ttlMs } = JSON.parse(saved) as { ttlMs: number | null };
    return ttlMs ?? undefined;
  }

  async function openBucket(
    name: string,
    options: KvBucketOptions | undefined,
  ): Promise<EmbeddedKvBucket> {
    await fsp.mkdir(root, { recursive: true });
    const ttlMs = await bucketTtl(name, options);
    const { log, records } = await DurableLog.open<KvRecord>(path.join(root, `${name}.log`));
    const bucket = new EmbeddedKvBucket(name, ttlMs, log, records, logger);
    await bucket.compact();
    return bucket;
  }

  async function bucket(name: string, options?: KvBucketOptions): Promise<EmbeddedKvBucket> {
    assertValidName('bucket', name);
    const existing = buckets.get(name);
    if (existing) {
      const opened = await existing;
      if (options) opened.setTtl(await bucketTtl(name, options));
      return opened;
    }
    const opening = openBucket(name, options);
    buckets.set(name, opening);
    void opening.catch(() => buckets.delete(name));
    return opening;
  }

  return {
    bucket,
    // One process: no permissions keep a reader from creating the bucket, and an empty bucket
    // reads as one its owner has not written yet.
    view: (name) => bucket(name),

    async close() {
      const opened = await Promise.allSettled([...buckets.values()]);
      await Promise.all(
        opened.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)),
      );
    },
  };
}
