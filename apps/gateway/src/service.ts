import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import {
  REQUEST_BODIES_BUCKET,
  REQUEST_BODIES_BUCKET_OPTIONS,
  ROUTES,
  type RouteSpec,
} from '@wap/contracts';
import { createSessionVerifier, type SessionClaims } from '@wap/auth';
import {
  answerUnparsedRequest,
  closeWhenIdle,
  createHttpEdge,
  createRequestSiteCheck,
} from '@wap/http';
import type { Platform } from '@wap/platform';
import type { GatewayConfig } from './config';
import { createGatewayApp } from './http/app';
import { observeRequest } from './http/metrics';
import { edgeRoutesOf } from './routing/route-table';
import { createActorResolver } from './sessions/actor-resolver';
import { createApiKeyAuthenticator } from './sessions/api-keys';
import { createSessionAuthenticator } from './sessions/authenticate';
import { createExtensionTokenAuthenticator } from './sessions/extension-tokens';
import { createSessionRevocations, type SessionRevocations } from './sessions/revocations';
import { cacheVerifiedSessions } from './sessions/verified-sessions';

export { type GatewayConfig, GatewayEnv, GatewayHttpEnv, gatewayConfigFromEnv } from './config';

export interface GatewayHandle {
  url: string;
  port: number;
  /** Stops accepting connections and waits for in-flight requests. */
  stop(): Promise<void>;
}

/** Who a request is: a session cookie or bearer token, or a browser extension's token. */
function createAuthenticator(
  platform: Pick<Platform, 'bus' | 'clock'>,
  config: GatewayConfig,
  sessions: {
    verify: (token: string) => Promise<SessionClaims>;
    revocations: SessionRevocations;
  },
) {
  const nowMs = () => platform.clock.now().getTime();
  return createSessionAuthenticator({
    verify: sessions.verify,
    isRevoked: (token, claims) => sessions.revocations.isRevoked(token, claims),
    resolveActor: createActorResolver({
      bus: platform.bus,
      timeoutMs: config.requestTimeoutMs,
      now: nowMs,
    }),
    authenticateExtensionToken: createExtensionTokenAuthenticator({
      bus: platform.bus,
      timeoutMs: config.requestTimeoutMs,
    }),
  });
}

/** How session cookies are checked, and the sessions signed out on the server. */
async function createSessions(
  platform: Pick<Platform, 'kv' | 'clock'>,
  config: GatewayConfig,
  logger: Logger,
) {
  const verifier = createSessionVerifier(config.session);
  const nowMs = () => platform.clock.now().getTime();
  return {
    verify: cacheVerifiedSessions((token) => verifier.verify(token), nowMs),
    revocations: await createSessionRevocations({ kv: platform.kv, logger, nowMs }),
  };
}

/** Starts the HTTP edge: sessions, the route table forwarded over the bus, Error bodies. */
export async function startGateway(deps: {
  /**
   * The gateway uses the bus, the object store for raw bodies too large for one message, and its
   * KV bucket of signed-out sessions.
   */
  platform: Pick<Platform, 'bus' | 'objects' | 'kv' | 'ids' | 'clock'>;
  logger: Logger;
  config: GatewayConfig;
  isReady: () => boolean;
  routes?: readonly RouteSpec[];
}): Promise<GatewayHandle> {
  const { config, logger } = deps;
  const routes = deps.routes ?? ROUTES;
  // Parked bodies may outlive their request as a webhook event's body: the bucket's age limit
  // removes what nothing deleted.
  await deps.platform.objects.ensureBucket(REQUEST_BODIES_BUCKET, REQUEST_BODIES_BUCKET_OPTIONS);
  const sessions = await createSessions(deps.platform, config, logger);
  const authenticator = createAuthenticator(deps.platform, config, sessions);
  const isFromTrustedSite = createRequestSiteCheck([config.publicOrigin, config.webOrigin]);
  const closing = new AbortController();
  const serveRoute = createHttpEdge({
    routes: edgeRoutesOf(routes, {
      bus: deps.platform.bus,
      objects: deps.platform.objects,
      ids: deps.platform.ids,
      authenticator,
      authenticateApiKey: createApiKeyAuthenticator({
        bus: deps.platform.bus,
        timeoutMs: config.requestTimeoutMs,
      }),
      requestTimeoutMs: config.requestTimeoutMs,
      logger,
      closing: closing.signal,
    }),
    logger,
    trustProxyHops: config.trustProxyHops,
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigin: config.webOrigin,
    isFromTrustedSite,
    unmatched: 'pass',
    onAnswered: observeRequest,
  });
  const app = createGatewayApp({
    config,
    logger,
    routes,
    isReady: deps.isReady,
    isFromTrustedSite,
    clock: deps.platform.clock,
    sessions,
  });
  const server = createServer((req, res) => {
    if (!serveRoute(req, res)) app(req, res);
  });
  server.on('clientError', answerUnparsedRequest);
  const closeServer = closeWhenIdle(server);
  // Slightly above typical load-balancer idle timeouts, so the balancer closes idle sockets first.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  logger.info({ url }, 'gateway listening');
  if (config.devSignIn) {
    logger.warn(
      { sign_in: `${url}/dev/sign-in?email=you@example.com` },
      'DEV_SIGN_IN=on: anyone who reaches this address can sign in as anyone; never use it with real users',
    );
  }
  return {
    url,
    port,
    stop: async () => {
      const closed = closeServer();
      closing.abort();
      await closed;
      await sessions.revocations.stop();
    },
  };
}
