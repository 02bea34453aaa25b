export type {
  Platform,
  Bus,
  BusCaller,
  Subscription,
  BusMessage,
  BusReply,
  MessageHeaders,
  Streams,
  StreamConfig,
  StreamMessage,
  ConsumerConfig,
  StreamConsumer,
  Kv,
  KvBucket,
  KvBucketOptions,
  ObjectBucketOptions,
  ObjectStore,
  SqlDatabase,
  Clock,
  IdSource,
} from './platform';
export {
  NoRespondersError,
  BusTimeoutError,
  KvConflictError,
  isDatabaseUnavailable,
} from './errors';
export { encodeJson, decodeJson, canonicalJson } from './json-codec';
export { createDistributedPlatform } from './distributed';
export { createEmbeddedPlatform } from './embedded';
export { createEmbeddedBus } from './embedded/bus';
export { withNamespace } from './namespace';
export { isJsonbStorable, toJsonbStorable } from './jsonb';
export {
  generateNatsUsers,
  natsServerConfig,
  natsAuthorization,
  type NatsUser,
} from './distributed/nats-credentials';
export { createKvMirror, type KvMirror } from './kv-mirror';
