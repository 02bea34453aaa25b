import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/** Appends after which a log may be compacted at the earliest (see `worthCompacting`). */
const COMPACT_AFTER_APPENDS = 1_000;

interface PendingAppend {
  line: string;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * An append-only file of JSON records, one per line. `append` resolves only once the record
 * is on disk (fsync); appends that arrive while a write is in progress are batched into the
 * next write, so concurrent publishers share one fsync.
 */
export class DurableLog<TRecord> {
  private pending: PendingAppend[] = [];
  private flushing: Promise<void> | null = null;
  private appended = 0;

  private constructor(
    readonly filePath: string,
    private handle: fsp.FileHandle,
  ) {}

  /**
   * Reads every complete record, drops a torn last line left by a crash mid-write (so the
   * next append starts on a fresh line), and opens the file for appending.
   */
  static async open<TRecord>(
    filePath: string,
  ): Promise<{ log: DurableLog<TRecord>; records: TRecord[] }> {
    await fsp.mkdir(path.dirname(filePath), { recursive: true });
    const records: TRecord[] = [];
    let content = '';
    try {
      content = await fsp.readFile(filePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const completeLength = content.lastIndexOf('\n') + 1;
    for (const line of content.slice(0, completeLength).split('\n')) {
      if (line.length > 0) records.push(JSON.parse(line) as TRecord);
    }
    if (completeLength < content.length) {
      await fsp.truncate(filePath, Buffer.byteLength(content.slice(0, completeLength)));
    }
    const handle = await fsp.open(filePath, 'a');
    return { log: new DurableLog<TRecord>(filePath, handle), records };
  }

  /**
   * Whether the file is worth writing again whole for an owner that keeps `keptRecords`: once
   * it holds at least COMPACT_AFTER_APPENDS records more than that, and at least as many as it
   * keeps. The file then stays within about twice what it keeps, and each record is rewritten
   * a bounded number of times.
   */
  worthCompacting(keptRecords: number): boolean {
    return this.appended >= Math.max(COMPACT_AFTER_APPENDS, keptRecords);
  }

  append(record: TRecord): Promise<void> {
    this.appended += 1;
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ line: `${JSON.stringify(record)}\n`, resolve, reject });
      this.flushing ??= this.flushLoop();
    });
  }

  /**
   * Replaces the whole file with the records `current()` gives (compaction): written to a temp
   * file, synced and renamed over the log, so a crash leaves either the old or the new file.
   * `current()` is read once everything appended before is on disk; appends made meanwhile wait
   * and go to the new file, so the owner may go on appending while its log is compacted.
   */
  async rewrite(current: () => TRecord[]): Promise<void> {
    while (this.flushing) await this.flushing;
    let finished: () => void = () => undefined;
    this.flushing = new Promise<void>((resolve) => {
      finished = resolve;
    });
    try {
      this.appended = 0;
      const lines = current()
        .map((record) => `${JSON.stringify(record)}\n`)
        .join('');
      const tempPath = `${this.filePath}.compact`;
      await writeFileDurably(tempPath, lines);
      await this.handle.close();
      try {
        await fsp.rename(tempPath, this.filePath);
        await syncDirectory(path.dirname(this.filePath));
      } finally {
        this.handle = await fsp.open(this.filePath, 'a');
      }
    } finally {
      this.flushing = null;
      finished();
      if (this.pending.length > 0) this.flushing = this.flushLoop();
    }
  }

  /** Waits until everything appended so far is on disk. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  async close(): Promise<void> {
    await this.flush();
    await this.handle.close();
  }

  private async flushLoop(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.handle.write(batch.map((append) => append.line).join(''));
        await this.handle.datasync();
        for (const append of batch) append.resolve();
      } catch (error) {
        for (const append of batch) append.reject(error);
      }
    }
    this.flushing = null;
  }
}

/** Writes `content` to `filePath` and fsyncs it before resolving. */
export async function writeFileDurably(
  filePath: string,
  content: string | Uint8Array,
): Promise<void> {
  const handle = await fsp.open(filePath, 'w');
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename or a new file in `directory` durable (the directory entry itself is synced). */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await fsp.open(directory, fs.constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes a small file atomically: temp file, fsync, rename, fsync of the folder. */
export async function replaceFileDurably(filePath: string, content: string): Promise<void> {
  const tempPath = `${filePath}.tmp`;
  await writeFileDurably(tempPath, content);
  await fsp.rename(tempPath, filePath);
  await syncDirectory(path.dirname(filePath));
}
