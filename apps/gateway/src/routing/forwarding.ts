import type { Logger } from 'pino';
import { AppError, type ApiKeyPrincipal, type RouteSpec } from '@wap/contracts';
import { validate, type EdgeRequest } from '@wap/http';
import {
  BusTimeoutError,
  NoRespondersError,
  type Bus,
  type IdSource,
  type ObjectStore,
} from '@wap/platform';
import type { SessionAuthenticator } from '../sessions/authenticate';

/** What the gateway's route handlers forward with. */
export interface ForwardingDeps {
  bus: Bus;
  objects: ObjectStore;
  ids: IdSource;
  authenticator: SessionAuthenticator;
  /** The workspace a `Bearer sk_...` key belongs to, or a 401. */
  authenticateApiKey: (request: EdgeRequest) => Promise<ApiKeyPrincipal>;
  requestTimeoutMs: number;
  logger: Logger;
  /** Aborted when the gateway stops: open event streams end so that clients resume elsewhere. */
  closing: AbortSignal;
}

/** A service that does not answer in time, or at all, is a 503 for the caller. */
export function unavailableWhenUnanswered(route: RouteSpec) {
  return (error: unknown): never => {
    if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
      throw new AppError('SERVICE_UNAVAILABLE', `The ${route.owner} service is unavailable`);
    }
    throw error;
  };
}

/** The path parameters, checked against the route's schema when it has one. */
export function validParams(request: EdgeRequest): Record<string, string> {
  const schema = request.route.request?.params;
  return schema
    ? (validate(schema, request.params, 'params') as Record<string, string>)
    : request.params;
}
