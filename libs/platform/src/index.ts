export type {
  Platform,
  Bus,
  BusMessage,
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
export { NoRespondersError, BusTimeoutError, KvConflictError } from './errors';
export {
  serveApi,
  callApi,
  serveRoutes,
  callRoute,
  callRawRoute,
  INLINE_BODY_LIMIT_BYTES,
  REQUEST_BODIES_BUCKET,
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
  withMetrics,
  subjectTemplate,
  type PlatformMetrics,
  type BusRequestOutcome,
  type StreamMessageOutcome,
} from './metered';
export { isJsonbStorable, toJsonbStorable } from './jsonb';
export { actorOf, parseRequestPart } from './route-requests';
export { encodeKeysetCursor, decodeKeysetCursor, type KeysetPosition } from './keyset-cursor';
