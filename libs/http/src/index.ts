export {
  answerUnparsedRequest,
  errorHandler,
  errorReplyOf,
  notFoundHandler,
} from './error-handler';
export { requestIdFor } from './request-id';
export { validate } from './validation';
export { startHealthServer, type HealthServer } from './health';
export { onShutdown, type ShutdownStep } from './shutdown';
export { envBoolean, parseConfig, redactConfig } from './env';
export {
  clientAddressOf,
  payloadTooLarge,
  protocolOf,
  requestHeader,
  simpleQueryOf,
  writeServiceReply,
} from './raw-request';
export { JSON_NESTING_LIMIT, nestsDeeperThan, valueNestsDeeperThan } from './json-nesting';
export { loggablePath, secretFingerprint } from './loggable-path';
export { metricsAccessOf, metricsCheck, type MetricsAccess } from './metrics-access';
export { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './rate-limiter';
export {
  createActorRateLimit,
  rateLimited,
  retryAfterHeaderOf,
  type ActorRateLimits,
} from './actor-rate-limit';
export {
  createHttpEdge,
  UNMATCHED_ROUTE,
  type EdgeHandler,
  type EdgeRoute,
  type HttpEdge,
  type HttpEdgeOptions,
} from './edge/http-edge';
export { passedOnHeaders, rawServiceRequestOf, type EdgeRequest } from './edge/edge-request';
export { type JsonBody } from './edge/request-body';
export { allowConfiguredOrigin, answerCors } from './edge/cors';
export {
  createRequestSiteCheck,
  isUnsafeMethod,
  type RequestOfSite,
  type RequestSiteCheck,
} from './edge/request-site';
