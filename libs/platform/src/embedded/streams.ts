import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type {
  ConsumerConfig,
  MessageHeaders,
  StreamConfig,
  StreamConsumer,
  StreamMessage,
  StreamPublishAck,
  StreamPublishOptions,
  Streams,
} from '../platform';
import { DurableLog, replaceFileDurably } from './durable-log';
import { assertValidName, subjectMatches } from './subjects';

const DEFAULT_DUPLICATE_WINDOW_MS = 2 * 60_000;
const DEFAULT_ACK_WAIT_MS = 30_000;
/** How often messages past maxAgeMs and message ids past the duplicate window are dropped. */
const SWEEP_INTERVAL_MS = 1_000;
/**
 * Subject of the record a compacted message log keeps when its newest message is gone (expired):
 * it carries only the last seq, so that seqs are never handed out twice after a restart.
 */
const LAST_SEQ_MARKER_SUBJECT = '';

interface StoredMessage {
  seq: number;
  subject: string;
  /** base64 */
  data: string;
  headers: MessageHeaders;
  /** epoch ms when stored */
  time: number;
  messageId?: string;
}

/** Consumer log records: a delivery (so counts survive a restart) or a final settlement. */
type ConsumerRecord =
  | { kind: 'delivered'; seq: number }
  | { kind: 'acked'; seq: number }
  | { kind: 'termed'; seq: number }
  | {
      kind: 'snapshot';
      deliveredUpTo: number;
      settledUpTo: number;
      settled: number[];
      counts: [number, number][];
    };

interface Member {
  busy: boolean;
  active: boolean;
  handler: (message: StreamMessage) => Promise<void>;
  /** Messages handed to this member that are still being handled. */
  running: Set<Promise<void>>;
}

interface Outstanding {
  member: Member | null;
  timer: NodeJS.Timeout | null;
}

/** One durable consumer: its delivery state is shared by every member that consumes under its name. */
class Durable {
  readonly members: Member[] = [];
  private nextMember = 0;
  /** Every seq <= settledUpTo is acked, termed, outside the filter or gone before delivery. */
  private settledUpTo = 0;
  private readonly settled = new Set<number>();
  /** Highest seq ever handed out; seqs above it have never been delivered. */
  private deliveredUpTo = 0;
  private readonly counts = new Map<number, number>();
  /** Delivered and not settled: waiting for ack, for ackWait or for a nak delay. */
  private readonly outstanding = new Map<number, Outstanding>();
  /** Ready to be delivered again, lowest seq first. */
  private readonly redeliverable = new Set<number>();
  private pumping = false;
  config: ConsumerConfig;

  constructor(
    private readonly stream: EmbeddedStream,
    config: ConsumerConfig,
    private readonly log: DurableLog<ConsumerRecord>,
    records: ConsumerRecord[],
    private readonly logger: Logger,
  ) {
    this.config = config;
    for (const record of records) this.replay(record);
    // Whatever was delivered before the restart and never settled is due again now.
    for (const seq of this.counts.keys()) {
      if (this.stream.has(seq)) this.redeliverable.add(seq);
    }
  }

  private replay(record: ConsumerRecord): void {
    switch (record.kind) {
      case 'snapshot':
        this.deliveredUpTo = record.deliveredUpTo;
        this.settledUpTo = record.settledUpTo;
        for (const seq of record.settled) this.settled.add(seq);
        for (const [seq, count] of record.counts) this.counts.set(seq, count);
        return;
      case 'delivered':
        this.deliveredUpTo = Math.max(this.deliveredUpTo, record.seq);
        this.counts.set(record.seq, (this.counts.get(record.seq) ?? 0) + 1);
        return;
      case 'acked':
      case 'termed':
        this.markSettled(record.seq);
        return;
    }
  }

  /** The state as one record, written at open so the log does not grow without bound. */
  snapshot(): ConsumerRecord {
    return {
      kind: 'snapshot',
      deliveredUpTo: this.deliveredUpTo,
      settledUpTo: this.settledUpTo,
      settled: [...this.settled],
      counts: [...this.counts].filter(([seq]) => seq > this.settledUpTo && !this.settled.has(seq)),
    };
  }

  /** Writes the consumer log again as one snapshot record once enough has been appended. */
  async compactLogIfDue(): Promise<void> {
    // The log keeps one snapshot record.
    if (!this.log.worthCompacting(1)) return;
    await this.log.rewrite(() => [this.snapshot()]);
  }

  private markSettled(seq: number): void {
    this.settled.add(seq);
    this.counts.delete(seq);
    // A seq up to the highest delivered that waits for no ack was settled, or never delivered
    // at all (outside the filter, or expired first): none of them holds the mark back.
    while (this.settledUpTo < this.deliveredUpTo && !this.counts.has(this.settledUpTo + 1)) {
      this.settledUpTo += 1;
      this.settled.delete(this.settledUpTo);
    }
  }

  private persist(record: ConsumerRecord): void {
    // Acks are fire-and-forget in the Platform API (as in JetStream); a crash before the fsync
    // means a redelivery, never a loss.
    this.log.append(record).catch((error: unknown) => {
      this.logger.error(
        { err: error, durable: this.config.durable },
        'consumer state write failed',
      );
    });
  }

  addMember(handler: (message: StreamMessage) => Promise<void>): Member {
    const member: Member = { busy: false, active: true, handler, running: new Set() };
    this.members.push(member);
    this.pump();
    return member;
  }

  async removeMember(member: Member): Promise<void> {
    member.active = false;
    const index = this.members.indexOf(member);
    if (index >= 0) this.members.splice(index, 1);
    await Promise.allSettled([...member.running]);
  }

  stopTimers(): void {
    for (const entry of this.outstanding.values()) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.timer = null;
    }
  }

  /** Called when the stream stored new messages or dropped old ones. */
  pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (;;) {
        const member = this.idleMember();
        if (!member) return;
        const seq = this.nextSeq();
        if (seq === null) return;
        this.deliver(seq, member);
      }
    } finally {
      this.pumping = false;
    }
  }

  private idleMember(): Member | null {
    for (let tried = 0; tried < this.members.length; tried += 1) {
      const member = this.members[(this.nextMember + tried) % this.members.length];
      if (member && member.active && !member.busy) {
        this.nextMember = (this.nextMember + tried + 1) % this.members.length;
        return member;
      }
    }
    return null;
  }

  private nextSeq(): number | null {
    for (const seq of [...this.redeliverable].sort((a, b) => a - b)) {
      this.redeliverable.delete(seq);
      if (this.stream.has(seq) && !this.exhausted(seq)) return seq;
    }
    const seq = this.stream.nextAfter(this.deliveredUpTo, this.config.filterSubject);
    if (seq !== null) this.deliveredUpTo = seq;
    return seq;
  }

  /** Stored messages past the highest one ever delivered, within the filter. */
  pending(): number {
    return this.stream.countAfter(this.deliveredUpTo, this.config.filterSubject);
  }

  private exhausted(seq: number): boolean {
    const { maxDeliver } = this.config;
    return maxDeliver !== undefined && maxDeliver > 0 && (this.counts.get(seq) ?? 0) >= maxDeliver;
  }

  private deliver(seq: number, member: Member): void {
    const stored = this.stream.get(seq);
    if (!stored) return;
    const deliveryCount = (this.counts.get(seq) ?? 0) + 1;
    this.counts.set(seq, deliveryCount);
    this.persist({ kind: 'delivered', seq });
    const entry: Outstanding = { member, timer: null };
    this.outstanding.set(seq, entry);
    this.armAckWait(seq, entry);

    let settled = false;
    const settle = (outcome: 'ack' | 'term' | 'nak', delayMs?: number): void => {
      if (settled || this.outstanding.get(seq) !== entry) return;
      settled = true;
      if (entry.timer) clearTimeout(entry.timer);
      this.outstanding.delete(seq);
      if (outcome === 'nak') {
        this.scheduleRedelivery(seq, delayMs ?? 0);
        return;
      }
      this.markSettled(seq);
      this.persist({ kind: outcome === 'ack' ? 'acked' : 'termed', seq });
    };
    const message: StreamMessage = {
      subject: stored.subject,
      data: Buffer.from(stored.data, 'base64'),
      headers: { ...stored.headers },
      seq,
      deliveryCount,
      ack: () => settle('ack'),
      nak: (delayMs) => settle('nak', delayMs),
      term: () => settle('term'),
      working: () => {
        if (!settled && this.outstanding.get(seq) === entry) this.armAckWait(seq, entry);
      },
    };

    member.busy = true;
    const run = new Promise<void>((done) => setImmediate(done))
      .then(() => member.handler(message))
      .catch((error: unknown) => {
        this.logger.warn(
          { err: error, durable: this.config.durable, seq },
          'stream handler failed',
        );
        settle('nak');
      })
      .finally(() => {
        member.busy = false;
        member.running.delete(run);
        this.pump();
      });
    member.running.add(run);
  }

  private armAckWait(seq: number, entry: Outstanding): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (this.outstanding.get(seq) !== entry) return;
      this.outstanding.delete(seq);
      this.scheduleRedelivery(seq, 0);
    }, this.config.ackWaitMs ?? DEFAULT_ACK_WAIT_MS);
  }

  private scheduleRedelivery(seq: number, delayMs: number): void {
    if (delayMs <= 0) {
      this.redeliverable.add(seq);
      this.pump();
      return;
    }
    const entry: Outstanding = { member: null, timer: null };
    this.outstanding.set(seq, entry);
    entry.timer = setTimeout(() => {
      if (this.outstanding.get(seq) !== entry) return;
      this.outstanding.delete(seq);
      this.redeliverable.add(seq);
      this.pump();
    }, delayMs);
  }
}

/** One stream: its messages in memory, backed by an fsynced append-only log. */
class EmbeddedStream {
  private readonly messages = new Map<number, StoredMessage>();
  private lastSeq = 0;
  private readonly recentIds = new Map<
    string,
    { seq: number; time: number; stored: Promise<void> }
  >();
  readonly durables = new Map<string, Durable>();
  /** Messages being written: not visible yet, but already part of what a compaction keeps. */
  private readonly storing = new Map<number, StoredMessage>();
  private compacting: Promise<void> | null = null;

  constructor(
    public config: StreamConfig,
    readonly folder: string,
    private readonly log: DurableLog<StoredMessage>,
    records: StoredMessage[],
  ) {
    for (const record of records) {
      this.lastSeq = Math.max(this.lastSeq, record.seq);
      if (record.subject === LAST_SEQ_MARKER_SUBJECT) continue;
      this.messages.set(record.seq, record);
      if (record.messageId) {
        this.recentIds.set(record.messageId, {
          seq: record.seq,
          time: record.time,
          stored: Promise.resolve(),
        });
      }
    }
  }

  captures(subject: string): boolean {
    return this.config.subjects.some((pattern) => subjectMatches(pattern, subject));
  }

  has(seq: number): boolean {
    return this.messages.has(seq);
  }

  get(seq: number): StoredMessage | undefined {
    return this.messages.get(seq);
  }

  /** The first stored seq after `seq` whose subject passes `filter`, or null. */
  nextAfter(seq: number, filter: string | undefined): number | null {
    for (let candidate = seq + 1; candidate <= this.lastSeq; candidate += 1) {
      const message = this.messages.get(candidate);
      if (message && (!filter || subjectMatches(filter, message.subject))) return candidate;
    }
    return null;
  }

  /** How many stored messages after `seq` pass `filter`. */
  countAfter(seq: number, filter: string | undefined): number {
    let count = 0;
    for (const [candidate, message] of this.messages) {
      if (candidate > seq && (!filter || subjectMatches(filter, message.subject))) count += 1;
    }
    return count;
  }

  async publish(
    subject: string,
    data: Uint8Array,
    options: StreamPublishOptions,
  ): Promise<StreamPublishAck> {
    const now = Date.now();
    const window = this.config.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    const { messageId } = options;
    if (messageId) {
      const seen = this.recentIds.get(messageId);
      if (seen && now - seen.time < window) {
        await seen.stored;
        return { stream: this.config.name, seq: seen.seq, duplicate: true };
      }
    }
    this.lastSeq += 1;
    const record: StoredMessage = {
      seq: this.lastSeq,
      subject,
      data: Buffer.from(data).toString('base64'),
      headers: { ...options.headers },
      time: now,
      ...(messageId ? { messageId } : {}),
    };
    this.storing.set(record.seq, record);
    const stored = this.log.append(record);
    if (messageId) this.recentIds.set(messageId, { seq: record.seq, time: now, stored });
    try {
      await stored;
    } finally {
      this.storing.delete(record.seq);
    }
    this.messages.set(record.seq, record);
    for (const durable of this.durables.values()) durable.pump();
    return { stream: this.config.name, seq: record.seq, duplicate: false };
  }

  /** Drops messages past maxAgeMs and message ids past the duplicate window. */
  sweep(now: number): void {
    const window = this.config.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
    for (const [id, seen] of this.recentIds) {
      if (now - seen.time >= window) this.recentIds.delete(id);
    }
    const { maxAgeMs } = this.config;
    if (maxAgeMs === undefined) return;
    for (const [seq, message] of this.messages) {
      if (now - message.time < maxAgeMs) break;
      this.messages.delete(seq);
    }
  }

  /** Writes the log again without expired messages: at open, and once enough have expired. */
  async compact(): Promise<void> {
    this.sweep(Date.now());
    await this.log.rewrite(() => {
      const kept = [...this.messages.values(), ...this.storing.values()].sort(
        (a, b) => a.seq - b.seq,
      );
      if ((kept.at(-1)?.seq ?? 0) < this.lastSeq) {
        kept.push({
          seq: this.lastSeq,
          subject: LAST_SEQ_MARKER_SUBJECT,
          data: '',
          headers: {},
          time: Date.now(),
        });
      }
      return kept;
    });
  }

  /** Compacts once the log holds more expired records than kept ones; one compaction at a time. */
  compactIfDue(): Promise<void> {
    if (this.log.worthCompacting(this.messages.size) && !this.compacting) {
      this.compacting = this.compact().finally(() => {
        this.compacting = null;
      });
    }
    return this.compacting ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.compacting?.catch(() => undefined);
    await this.log.close();
  }
}

/** Streams persisted under `<dataDir>/streams/<NAME>/`: config, message log, consumer logs. */
/* eslint-disable-next-line max-lines-per-function --
  an adapter: one short method per Streams operation over the one stream table */
export async function createEmbeddedStreams(
  dataDir: string,
  logger: Logger,
): Promise<Streams & { close(): Promise<void> }> {
  const root = path.join(dataDir, 'streams');
  await fsp.mkdir(root, { recursive: true });
  const streams = new Map<string, EmbeddedStream>();
  const consumerLogs: DurableLog<ConsumerRecord>[] = [];
  const openingDurables = new Map<string, Promise<Durable>>();
  const members = new Set<{ durable: Durable; member: Member }>();

  async function openStream(config: StreamConfig): Promise<EmbeddedStream> {
    const folder = path.join(root, config.name);
    const { log, records } = await DurableLog.open<StoredMessage>(
      path.join(folder, 'messages.log'),
    );
    const stream = new EmbeddedStream(config, folder, log, records);
    await stream.compact();
    return stream;
  }

  for (const name of await fsp.readdir(root)) {
    const configText = await fsp
      .readFile(path.join(root, name, 'config.json'), 'utf8')
      .catch(() => null);
    if (configText === null) continue;
    const config = JSON.parse(configText) as StreamConfig;
    streams.set(config.name, await openStream(config));
  }

  const logCompactionFailed = (error: unknown) =>
    logger.error({ err: error }, 'compacting a stream log failed; retried at the next sweep');
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const stream of streams.values()) {
      stream.sweep(now);
      stream.compactIfDue().catch(logCompactionFailed);
      for (const durable of stream.durables.values()) {
        durable.compactLogIfDue().catch(logCompactionFailed);
      }
    }
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    async ensureStream(config) {
      assertValidName('stream', config.name);
      const folder = path.join(root, config.name);
      await fsp.mkdir(folder, { recursive: true });
      await replaceFileDurably(path.join(folder, 'config.json'), JSON.stringify(config));
      const existing = streams.get(config.name);
      if (existing) {
        existing.config = config;
        return;
      }
      streams.set(config.name, await openStream(config));
    },

    async publish(subject, data, options = {}) {
      const stream = [...streams.values()].find((candidate) => candidate.captures(subject));
      if (!stream) throw new Error(`no stream captures subject ${subject}`);
      return stream.publish(subject, data, options);
    },

    async consume(config: ConsumerConfig, handler): Promise<StreamConsumer> {
      assertValidName('consumer', config.durable);
      const stream = streams.get(config.stream);
      if (!stream) throw new Error(`stream ${config.stream} not found`);
      let durable = stream.durables.get(config.durable);
      if (durable) {
        durable.config = config;
      } else {
        // Consume calls for one new durable share a single opening of its log: two openings
        // would both compact the same file.
        const key = `${config.stream}/${config.durable}`;
        let opening = openingDurables.get(key);
        if (!opening) {
          opening = (async () => {
            const { log, records } = await DurableLog.open<ConsumerRecord>(
              path.join(stream.folder, 'consumers', `${config.durable}.log`),
            );
            const opened = new Durable(stream, config, log, records, logger);
            await log.rewrite(() => [opened.snapshot()]);
            stream.durables.set(config.durable, opened);
            consumerLogs.push(log);
            return opened;
          })().finally(() => openingDurables.delete(key));
          openingDurables.set(key, opening);
        }
        durable = await opening;
      }
      const owner = durable;
      const member = owner.addMember(handler);
      const handle = { durable: owner, member };
      members.add(handle);
      return {
        async stop() {
          members.delete(handle);
          await owner.removeMember(member);
        },
      };
    },

    async pending(streamName, durableName) {
      const durable = streams.get(streamName)?.durables.get(durableName);
      if (!durable) throw new Error(`consumer ${durableName} of stream ${streamName} not found`);
      return durable.pending();
    },

    async close() {
      clearInterval(sweeper);
      await Promise.all([...members].map(({ durable, member }) => durable.removeMember(member)));
      members.clear();
      for (const stream of streams.values()) {
        for (const durable of stream.durables.values()) durable.stopTimers();
      }
      await Promise.all(consumerLogs.map((log) => log.close()));
      await Promise.all([...streams.values()].map((stream) => stream.close()));
    },
  };
}
