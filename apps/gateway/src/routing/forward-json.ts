import { AppError, type RouteSpec, type ServiceRequest } from '@wap/contracts';
import { validate, type EdgeHandler, type EdgeRequest } from '@wap/http';
import { isJsonbStorable, NoRespondersError } from '@wap/platform';
import { callRoute } from '@wap/bus-protocol';
import { unavailableWhenUnanswered, validParams, type ForwardingDeps } from './forwarding';

function pickHeaders(request: EdgeRequest, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = request.header(name);
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

/** A JSON route: authenticate, validate every part, forward over the bus. */
export function forwardJson(route: RouteSpec, deps: ForwardingDeps): EdgeHandler {
  return async (request) => {
    const json = route.bodyKind === 'json' ? await request.json() : undefined;
    // Strings with a NUL or a lone surrogate are valid JSON, but no service can store them
    // (PostgreSQL refuses both): refused here with the other validation errors, not as a 500.
    if (json?.hasUnicodeEscapes && !isJsonbStorable(json.value)) {
      throw new AppError(
        'VALIDATION_ERROR',
        'Strings may not contain NUL characters or unpaired surrogates',
      );
    }
    const actor = route.auth === 'session' ? await deps.authenticator.authenticate(request) : null;
    const params = validParams(request);
    const query = route.request?.query
      ? validate(route.request.query, request.query(), 'query')
      : request.query();
    const body =
      route.bodyKind === 'json' && route.request?.body
        ? validate(route.request.body, json?.value, 'body')
        : undefined;
    const forwarded: ServiceRequest = {
      requestId: request.requestId,
      actor,
      params,
      query: query as ServiceRequest['query'],
      headers: pickHeaders(request, route.forwardHeaders ?? []),
      body,
    };
    const call = (subject: string) =>
      callRoute(deps.bus, subject, forwarded, {
        timeoutMs: route.timeoutMs ?? deps.requestTimeoutMs,
      });
    return call(route.subject)
      .catch((error: unknown) => {
        // A service not yet updated in a rolling deploy serves the version before (decision 143).
        if (route.previousSubject && error instanceof NoRespondersError) {
          return call(route.previousSubject);
        }
        throw error;
      })
      .catch(unavailableWhenUnanswered(route));
  };
}
