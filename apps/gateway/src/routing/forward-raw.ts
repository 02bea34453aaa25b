import type { RouteSpec } from '@wap/contracts';
import { rawServiceRequestOf, type EdgeHandler } from '@wap/http';
import { callRawRoute } from '@wap/bus-protocol';
import { unavailableWhenUnanswered, type ForwardingDeps } from './forwarding';

/**
 * A raw route (webhooks, the MCP endpoint): the body's bytes and the request's metadata go to
 * the owner as they came, but for the caller's credentials, which stay at the edge.
 */
export function forwardRaw(route: RouteSpec, deps: ForwardingDeps): EdgeHandler {
  // Raw routes are for callers without a session (webhooks, MCP clients with API keys).
  if (route.auth === 'session') throw new Error(`raw route ${route.operationId} takes no session`);
  return async (request) => {
    const apiKey = route.auth === 'api_key' ? await deps.authenticateApiKey(request) : null;
    const { body, ...meta } = rawServiceRequestOf(request, await request.body(), apiKey);
    return callRawRoute(deps, route.subject, meta, body, {
      timeoutMs: deps.requestTimeoutMs,
    }).catch(unavailableWhenUnanswered(route));
  };
}
