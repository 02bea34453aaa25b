import type { RouteSpec } from '@wap/contracts';
import type { EdgeRoute } from '@wap/http';
import { eventStreamHandler } from '../event-streams/event-stream-route';
import { downloadHandler } from '../uploads/download-route';
import { uploadHandler } from '../uploads/upload-route';
import { forwardJson } from './forward-json';
import { forwardRaw } from './forward-raw';
import type { ForwardingDeps } from './forwarding';

/** Every route of the table with the handler its kind needs, for the HTTP edge to serve. */
export function edgeRoutesOf(routes: readonly RouteSpec[], deps: ForwardingDeps): EdgeRoute[] {
  return routes.map((route) => {
    if (route.bodyKind === 'multipart') {
      if (!route.upload) throw new Error(`multipart route ${route.operationId} has no upload`);
      return { route, handle: uploadHandler(route, route.upload, deps) };
    }
    if (route.responseKind === 'file') return { route, handle: downloadHandler(route, deps) };
    if (route.responseKind === 'event_stream') {
      return { route, handle: eventStreamHandler(route, deps) };
    }
    if (route.bodyKind === 'raw') return { route, handle: forwardRaw(route, deps) };
    return { route, handle: forwardJson(route, deps) };
  });
}
