import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import type { SessionClaims } from '@wap/auth';
import type { RouteSpec } from '@wap/contracts';
import {
  errorHandler,
  loggablePath,
  notFoundHandler,
  requestIdFor,
  type RequestSiteCheck,
} from '@wap/http';
import { runInServerSpan } from '@wap/observability';
import type { Clock } from '@wap/platform';
import type { GatewayConfig } from '../config';
import { mountDevSignIn, mountSignInLinks } from '../dev/sign-in';
import { buildOpenApiDocument } from '../openapi/openapi';
import type { SessionRevocations } from '../sessions/revocations';
import { mountSessionRoutes } from '../web/session-routes';
import { mountWebApp } from '../web/web-app';
import { corsForOrigin } from './cors';
import { mountMetrics, observeRequest, routeLabelOf } from './metrics';

export interface GatewayAppDeps {
  config: GatewayConfig;
  logger: Logger;
  /** The route table, for the OpenAPI document: the HTTP edge serves its routes. */
  routes: readonly RouteSpec[];
  isReady: () => boolean;
  /** Whether a browser sent a request from a page of the platform or a trusted origin. */
  isFromTrustedSite: RequestSiteCheck;
  clock: Clock;
  /** How a session cookie is checked, and the sessions signed out on the server. */
  sessions: {
    verify: (token: string) => Promise<SessionClaims>;
    revocations: SessionRevocations;
  };
}

/** Each request's id, child logger, server span, metric and log line. */
function observedRequests(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const id = requestIdFor(req.get('x-request-id'));
    res.locals['requestId'] = id;
    res.setHeader('X-Request-Id', id);
    // Most requests log nothing beyond the request line: their child logger is made on first use.
    let requestLogger: Logger | undefined;
    Object.defineProperty(res.locals, 'logger', {
      get: () => (requestLogger ??= logger.child({ request_id: id })),
    });
    // Named by its method until routed: the route template, not the path with its ids, names it.
    void runInServerSpan(req.method, req.headers, async (span) => {
      await new Promise<void>((resolve) => {
        res.on('close', resolve);
        next();
      });
      const route = routeLabelOf(req);
      span.updateName(`${req.method} ${route}`);
      observeRequest(req.method, route, res.statusCode, started);
      logger.info(
        {
          request_id: id,
          method: req.method,
          path: loggablePath(req.path),
          route,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
  };
}

/**
 * The gateway's own routes, on Express: health, metrics, the OpenAPI document, the web app and
 * sign-in. The route table's routes never reach it; the HTTP edge serves them.
 */

export function createGatewayApp(deps: GatewayAppDeps): Express {
  const { config, logger } = deps;
  const app = express();
  app.disable('x-powered-by');
  // API responses are not conditional-GET targets; hashing every body for an ETag is wasted work.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxyHops);
  app.set('query parser', 'simple');

  app.use(observedRequests(logger));
  app.use(corsForOrigin(config.webOrigin));
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const ready = deps.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });
  mountMetrics(
    app,
    config.metricsAccess ?? (config.production ? { kind: 'none' } : { kind: 'open' }),
  );
  const openApi = buildOpenApiDocument(deps.routes, { serverUrl: config.publicOrigin });
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  const devSignIn = config.devSignIn && config.session.mode === 'secret';
  if (config.webDistDir) {
    mountWebApp(app, config.webDistDir);
  } else {
    app.get('/', (_req, res) => {
      res.json({
        service: 'workspace assistant and automation platform',
        openapi: '/openapi.json',
        signIn: devSignIn ? '/dev/sign-in?email=you@example.com' : undefined,
      });
    });
  }
  if (config.session.mode === 'secret') {
    const secretSessions = {
      secret: config.session.secret,
      issuer: config.session.issuer,
      audience: config.session.audience,
      secureCookie: config.sessionCookieSecure,
      isFromTrustedSite: deps.isFromTrustedSite,
      clock: deps.clock,
    };
    if (devSignIn) mountDevSignIn(app, secretSessions);
    mountSignInLinks(app, secretSessions);
  }
  mountSessionRoutes(app, {
    signInMethod: devSignIn
      ? 'development'
      : config.session.mode === 'secret'
        ? 'sign_in_link'
        : 'identity_provider',
    secureCookie: config.sessionCookieSecure,
    isFromTrustedSite: deps.isFromTrustedSite,
    ...deps.sessions,
  });

  app.use(notFoundHandler());
  app.use(errorHandler(logger));
  return app;
}
