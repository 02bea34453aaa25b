import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { WEBHOOK_BODY_LIMIT_BYTES, type RouteSpec } from '@wap/contracts';
import {
  answerUnparsedRequest,
  closeWhenIdle,
  createHttpEdge,
  rawServiceRequestOf,
  type EdgeHandler,
} from '@wap/http';
import type { DirectDoorConfig } from '../config';
import { countRefusal, refusalReason, type RawRouteHandler, type WebhookEntry } from './deliveries';

export interface DirectDoorRoute {
  route: RouteSpec;
  handler: RawRouteHandler;
  /** Counted as a webhook delivery (the POST entries, not the description of an address). */
  entry?: WebhookEntry;
}

export interface DirectDoor {
  /** http://<host>:<port> as bound. */
  url: string;
  /** Stops accepting, then waits for the requests being answered. */
  close(): Promise<void>;
}

/**
 * The handler a bus subject serves, called with the request as the gateway would have sent it.
 * A body refused before the handler runs is counted here; from then on the handler counts.
 */
function directly({ handler, entry }: DirectDoorRoute): EdgeHandler {
  return async (request) => {
    let body: Buffer;
    try {
      body = await request.body();
    } catch (error) {
      if (entry) countRefusal(entry, refusalReason(error));
      throw error;
    }
    return handler(rawServiceRequestOf(request, body, null));
  };
}

/**
 * webhook-ingest's own HTTP entry (decision 90): the production path load balancer →
 * webhook-ingest → JetStream, without the gateway and the bus request between them. It serves
 * its routes through the same HTTP edge as the gateway (decision 126) and calls the very
 * handlers the bus subjects serve, so either entry gives the same answer to the same request.
 */
export async function startDirectDoor(deps: {
  routes: readonly DirectDoorRoute[];
  config: DirectDoorConfig;
  logger: Logger;
}): Promise<DirectDoor> {
  const serve = createHttpEdge({
    routes: deps.routes.map((route) => ({ route: route.route, handle: directly(route) })),
    logger: deps.logger,
    trustProxyHops: deps.config.trustProxyHops,
    bodyLimitBytes: WEBHOOK_BODY_LIMIT_BYTES,
    unmatched: 'not_found',
  });
  const server: Server = createServer(serve);
  server.on('clientError', answerUnparsedRequest);
  const closeServer = closeWhenIdle(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host === '0.0.0.0' ? '127.0.0.1' : deps.config.host;
  const url = `http://${host}:${port}`;
  deps.logger.info({ webhookUrl: url, port }, 'webhook door listening');
  return {
    url,
    close: closeServer,
  };
}
