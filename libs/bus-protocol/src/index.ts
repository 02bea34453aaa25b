export {
  serveApi,
  callApi,
  serveRoutes,
  callRoute,
  callRawRoute,
  INLINE_BODY_LIMIT_BYTES,
  injectTraceHeaders,
  withTraceFromHeaders,
  activeTraceparent,
  continueTrace,
  type RouteHandler,
} from './rpc';
export { withBusTrust, requestDigest, ASSERTION_HEADER } from './bus-trust';
export { withMetrics } from './metered';
export { actorOf, parseRequestPart } from './route-requests';
export {
  encodeKeysetCursor,
  decodeKeysetCursor,
  encodeSeqCursor,
  decodeSeqCursor,
  type KeysetPosition,
} from './page-cursors';
