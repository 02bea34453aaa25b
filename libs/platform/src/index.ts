export type {
  Platform,
  Bus,
  BusCaller,
  Subscription,
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
} from './rpc';
export { createDistributedPlatform } from './distributed';
export { createEmbeddedPlatform } from './embedded';
export { withNamespace } from './namespace';
export { withBusTrust, requestDigest, ASSERTION_HEADER } from './bus-trust';
export { withMetrics } from './metered';
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
} from './distributed/nats-credentials';
export { createKvMirror, type KvMirror } from './kv-mirror';
