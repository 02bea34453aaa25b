import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { AppError, type RouteSpec, type ServiceReply, type ServiceRequest } from '@wap/contracts';
import { validate } from '@wap/http';
import { BusTimeoutError, NoRespondersError, callRoute, type Bus } from '@wap/platform';
import type { SessionAuthenticator } from '../sessions/authenticate';

export interface ForwardingDeps {
  bus: Bus;
  authenticator: SessionAuthenticator;
  requestTimeoutMs: number;
  bodyLimitBytes: number;
}

/** Registers every route of the table: authenticate, validate at the edge, forward over the bus. */
export function mountRoutes(
  app: Express,
  routes: readonly RouteSpec[],
  deps: ForwardingDeps,
): void {
  const parseJson = express.json({ limit: deps.bodyLimitBytes, type: () => true, strict: false });
  for (const route of routes) {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const handlers: RequestHandler[] = [];
    if (route.bodyKind === 'json') handlers.push(requireJsonContentType, parseJson);
    handlers.push(forward(route, deps));
    app[method](route.path, ...handlers);
  }
}

function hasBody(req: Request): boolean {
  const length = req.get('content-length');
  return req.get('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
}

const requireJsonContentType: RequestHandler = (req, _res, next) => {
  if (hasBody(req) && !req.is(['application/json', 'application/*+json'])) {
    next(new AppError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'));
    return;
  }
  next();
};

function forward(route: RouteSpec, deps: ForwardingDeps): RequestHandler {
  return async (req, res, next) => {
    try {
      const actor = route.auth === 'session' ? await deps.authenticator.authenticate(req) : null;
      const params = route.request?.params
        ? validate(route.request.params, req.params, 'params')
        : { ...req.params };
      const query = route.request?.query
        ? validate(route.request.query, req.query, 'query')
        : (req.query as ServiceRequest['query']);
      const body =
        route.bodyKind === 'json' && route.request?.body
          ? validate(route.request.body, hasBody(req) ? req.body : undefined, 'body')
          : undefined;
      const request: ServiceRequest = {
        requestId: String(res.locals['requestId']),
        actor,
        params: params as Record<string, string>,
        query: query as ServiceRequest['query'],
        headers: pickHeaders(req, route.forwardHeaders ?? []),
        body,
      };
      const reply = await callRoute(deps.bus, route.subject, request, {
        timeoutMs: deps.requestTimeoutMs,
      }).catch((error: unknown) => {
        if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
          throw new AppError('SERVICE_UNAVAILABLE', `The ${route.owner} service is unavailable`);
        }
        throw error;
      });
      writeReply(res, reply);
    } catch (error) {
      next(error);
    }
  };
}

function pickHeaders(req: Request, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = req.get(name);
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

export function writeReply(res: Response, reply: ServiceReply): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.status(reply.status);
  if (reply.status === 204 || reply.body === undefined) {
    res.end();
  } else if (reply.bodyKind === 'text') {
    res.type('text/plain').send(String(reply.body));
  } else {
    res.json(reply.body);
  }
}
