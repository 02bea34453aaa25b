import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { Actor, BusPrincipal } from '@wap/contracts';

/** Headers carried with a bus or stream message (trace context, actor, message ids). */
export type MessageHeaders = Record<string, string>;

/** Who sent a request, as its verified assertion says (set by `withBusTrust`, never by the wire). */
export interface BusCaller {
  principal: BusPrincipal;
  /** The signed-in person the request acts for, when the gateway (or the operators' CLI) named one. */
  user?: Actor;
  requestId?: string;
}

/** A message received from the bus. */
export interface BusMessage {
  subject: string;
  data: Uint8Array;
  headers: MessageHeaders;
  /** Present on requests served through `withBusTrust`, once their assertion was verified. */
  caller?: BusCaller;
}

/** What a request handler answers with. */
export interface BusReply {
  data: Uint8Array;
  headers?: MessageHeaders;
}

export interface BusRequestOptions {
  /** How long to wait for a reply before failing with BusTimeoutError. */
  timeoutMs: number;
  headers?: MessageHeaders;
  /** The signed-in person the request acts for; only the gateway's and the operators' keys may name one. */
  onBehalfOf?: Actor;
  /** The HTTP request this bus request serves, for the logs of the service that answers. */
  requestId?: string;
}

export interface BusServeOptions {
  /** Members of one queue group share the requests: each request goes to exactly one of them. */
  queue?: string;
}

export interface Subscription {
  /** Stops receiving; for a served subject, requests already being handled still get their reply. */
  unsubscribe(): Promise<void>;
}

/** Core request/reply and publish/subscribe (NATS core, or its in-process twin). */
export interface Bus {
  /** Fails with NoRespondersError at once when nobody serves the subject, BusTimeoutError after timeoutMs. */
  request(subject: string, data: Uint8Array, options: BusRequestOptions): Promise<BusMessage>;
  serve(
    subject: string,
    handler: (message: BusMessage) => Promise<BusReply>,
    options?: BusServeOptions,
  ): Subscription;
  publish(subject: string, data: Uint8Array, headers?: MessageHeaders): void;
  subscribe(
    subject: string,
    handler: (message: BusMessage) => Promise<void> | void,
    options?: BusServeOptions,
  ): Subscription;
}

export interface StreamConfig {
  /** UPPER_SNAKE stream name. */
  name: string;
  /** Subjects captured by the stream (wildcards allowed). */
  subjects: string[];
  /** Window in which a repeated message id is stored only once. Default 2 minutes. */
  duplicateWindowMs?: number;
  /** Messages older than this are discarded. Default: kept until removed by limits. */
  maxAgeMs?: number;
}

export interface StreamPublishOptions {
  /** Dedupe id (JetStream Nats-Msg-Id): a second publish with the same id in the window is not stored. */
  messageId?: string;
  headers?: MessageHeaders;
}

export interface StreamPublishAck {
  stream: string;
  seq: number;
  /** True when the message id was seen within the duplicate window and nothing new was stored. */
  duplicate: boolean;
}

export interface StreamMessage {
  subject: string;
  data: Uint8Array;
  headers: MessageHeaders;
  /** Stream sequence of this message. */
  seq: number;
  /** 1 on first delivery, more on redeliveries. */
  deliveryCount: number;
  ack(): void;
  /** Ask for redelivery, after delayMs when given. */
  nak(delayMs?: number): void;
  /** Never deliver this message again (bad payload). */
  term(): void;
  /** Extend the ack deadline for long work. */
  working(): void;
  /**
   * The principal whose signature over the bytes verified, set by the trust layer of the
   * consuming service (decision 150); absent when unsigned or the signature failed.
   */
  publisher?: string;
}

export interface ConsumerConfig {
  stream: string;
  /** Durable consumer name, `<app>-<purpose>`, no dots. Consumers with one name share the work. */
  durable: string;
  filterSubject?: string;
  /** An unacked message is redelivered after this. Default 30 s. */
  ackWaitMs?: number;
  /** Give up on a message after this many deliveries. Default unlimited. */
  maxDeliver?: number;
}

export interface StreamConsumer {
  /** Stops taking messages; unacked ones are redelivered to another member after ackWait. */
  stop(): Promise<void>;
}

/** Durable streams (JetStream, or its in-process twin persisted under DATA_DIR). */
export interface Streams {
  ensureStream(config: StreamConfig): Promise<void>;
  publish(
    subject: string,
    data: Uint8Array,
    options?: StreamPublishOptions,
  ): Promise<StreamPublishAck>;
  /** Handlers must ack, nak, term or leave it to redelivery; a throwing handler naks. */
  consume(
    config: ConsumerConfig,
    handler: (message: StreamMessage) => Promise<void>,
  ): Promise<StreamConsumer>;
  /**
   * Messages of the stream (within the consumer's filter) not yet delivered to the durable
   * consumer: its lag. Redeliveries waiting for their turn are not counted.
   */
  pending(stream: string, durable: string): Promise<number>;
}

export interface KvEntry {
  key: string;
  value: Uint8Array;
  revision: number;
}

export type KvWatchEvent =
  { kind: 'put'; entry: KvEntry } | { kind: 'delete'; key: string; revision: number };

export interface KvWatcher {
  stop(): Promise<void>;
}

export interface KvBucketOptions {
  /** Entries expire this long after their last write (per bucket, as in NATS KV). */
  ttlMs?: number;
}

export interface KvBucket {
  readonly name: string;
  get(key: string): Promise<KvEntry | null>;
  /** Atomic create: fails with KvConflictError when the key holds a live value. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Compare-and-set: fails with KvConflictError unless the key's revision is `revision`. */
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  put(key: string, value: Uint8Array): Promise<number>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
  /**
   * Calls `onEvent` for the current value of every key first (initial replay), then for every
   * change; `onReady` runs once the replay is done.
   */
  watch(onEvent: (event: KvWatchEvent) => void, onReady?: () => void): Promise<KvWatcher>;
}

/** A bucket as a reader sees it: another service owns it and alone writes it. */
export type KvView = Pick<KvBucket, 'name' | 'get' | 'keys' | 'watch'>;

export interface Kv {
  /** Opens (or creates) a bucket; given options replace its settings, none keep them as they are. */
  bucket(name: string, options?: KvBucketOptions): Promise<KvBucket>;
  /**
   * Opens a bucket another service owns, to read it: never creates it or changes its settings
   * (a reader's NATS user may do neither), and waits for its owner to have created it.
   */
  view(name: string): Promise<KvView>;
}

export interface ObjectInfo {
  bucket: string;
  name: string;
  size: number;
  contentType?: string;
}

export interface ObjectBucketOptions {
  /** Objects stored longer ago than this are deleted. Default: kept until deleted. */
  maxAgeMs?: number;
}

export interface ObjectStore {
  /**
   * Creates the bucket when missing and sets its options. They are declared whole, as a
   * stream's configuration is: a bucket ensured without `maxAgeMs` keeps its objects for good.
   */
  ensureBucket(bucket: string, options?: ObjectBucketOptions): Promise<void>;
  /** Streams the content in without holding it in memory. */
  put(
    bucket: string,
    name: string,
    content: AsyncIterable<Uint8Array>,
    meta?: { contentType?: string },
  ): Promise<ObjectInfo>;
  get(
    bucket: string,
    name: string,
  ): Promise<{ info: ObjectInfo; content: AsyncIterable<Uint8Array> } | null>;
  info(bucket: string, name: string): Promise<ObjectInfo | null>;
  delete(bucket: string, name: string): Promise<void>;
}

/** drizzle over node-postgres or PGlite; both are PostgreSQL dialect databases. */
export type SqlDatabase = PgDatabase<PgQueryResultHKT, Record<string, never>>;

export interface MigrationSet {
  /** PostgreSQL schema owned by the service; the migrations journal lives in it too. */
  schema: string;
  /** Folder written by drizzle-kit generate. */
  migrationsFolder: string;
}

export interface Sql {
  db: SqlDatabase;
  /** Applies pending migrations once, safe to run concurrently from many replicas and twice. */
  migrate(set: MigrationSet): Promise<void>;
}

export interface Clock {
  now(): Date;
}

export interface IdSource {
  uuid(): string;
}

/** Everything a service needs from the outside world, handed over by its composition root. */
export interface Platform {
  readonly runtime: 'distributed' | 'embedded';
  bus: Bus;
  streams: Streams;
  kv: Kv;
  objects: ObjectStore;
  sql: Sql;
  clock: Clock;
  ids: IdSource;
  /** True while the underlying connections are usable (for /readyz). */
  isReady(): boolean;
  /** Drains subscriptions, flushes and closes connections. */
  close(): Promise<void>;
}
