export type {
  Platform,
  Bus,
  BusMessage,
  BusCaller,
  BusReply,
  BusRequestOptions,
  BusServeOptions,
  Subscription,
  MessageHeaders,
  Streams,
  StreamConfig,
  StreamPublishOptions,
  StreamPublishAck,
  StreamMessage,
  ConsumerConfig,
  StreamConsumer,
  Kv,
  KvBucket,
  KvBucketOptions,
  KvEntry,
  KvWatchEvent,
  KvWatcher,
  ObjectBucketOptions,
  ObjectStore,
  ObjectInfo,
  Sql,
  SqlDatabase,
  MigrationSet,
  Clock,
  IdSource,
} from './platform';
export {
  NoRespondersError,
  BusTimeoutError,
  KvConflictError,
  isDatabaseUnavailable,
} from './errors';
export {
  serveApi,
  callApi,
  serveRoutes,
  callRoute,
  callRawRoute,
  INLINE_BODY_LIMIT_BYTES,
  encodeJson,
  decodeJson,
  injectTraceHeaders,
  withTraceFromHeaders,
  activeTraceparent,
  continueTrace,
  type RouteHandler,
  type RawRouteHandler,
  type RouteHandlers,
  type ServeRoutesOptions,
  type ServeOptions,
  type CallOptions,
} from './rpc';
export { createDistributedPlatform, type DistributedPlatformOptions } from './distributed';
export { createEmbeddedPlatform, type EmbeddedPlatformOptions } from './embedded';
export { withNamespace } from './namespace';
export {
  withBusTrust,
  trustedBus,
  requestDigest,
  ASSERTION_HEADER,
  type BusTrust,
  type AssertionSigner,
  type AssertionVerifier,
} from './bus-trust';
export {
  withMetrics,
  type PlatformMetrics,
  type BusRequestOutcome,
  type StreamMessageOutcome,
} from './metered';
export { isJsonbStorable, toJsonbStorable } from './jsonb';
export { actorOf, parseRequestPart } from './route-requests';
export {
  encodeKeysetCursor,
  decodeKeysetCursor,
  encodeSeqCursor,
  decodeSeqCursor,
  type KeysetPosition,
} from './page-cursors';
export {
  generateNatsUsers,
  natsServerConfig,
  natsAuthorization,
  type NatsUser,
  type NatsClusterSettings,
} from './distributed/nats-credentials';
