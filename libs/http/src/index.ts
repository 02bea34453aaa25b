export { answerUnparsedRequest, errorHandler, notFoundHandler } from './error-handler';
export { requestIdFor } from './request-id';
export { validate } from './validation';
export { startHealthServer } from './health';
export { onShutdown } from './shutdown';
export { nestsDeeperThan } from './json-nesting';
export { loggablePath, secretFingerprint } from './loggable-path';
export { metricsAccessOf, metricsCheck, type MetricsAccess } from './metrics-access';
export { createRateLimiter, type RateLimiter } from './rate-limiter';
export { createActorRateLimit, type ActorRateLimits } from './actor-rate-limit';
export {
  createHttpEdge,
  UNMATCHED_ROUTE,
  type EdgeHandler,
  type EdgeRoute,
} from './edge/http-edge';
export { rawServiceRequestOf, type EdgeRequest } from './edge/edge-request';
export { answerCors } from './edge/cors';
export { createRequestSiteCheck, type RequestSiteCheck } from './edge/request-site';
export { closeWhenIdle } from './server-close';
