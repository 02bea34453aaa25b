import { match, type MatchFunction } from 'path-to-regexp';
import type { RouteSpec } from '@wap/contracts';

/** A request's route, with its path parameters decoded; `params` is undefined for a malformed escape. */
export interface MatchedRoute<Entry> {
  entry: Entry;
  params: Record<string, string> | undefined;
}

interface Compiled<Entry> {
  entry: Entry;
  matchPath: MatchFunction<Partial<Record<string, string>>>;
}

function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/**
 * Finds the route a request's method and path name, as Express 5 would: paths match without
 * case and with an optional trailing slash, the first route of the table wins, HEAD takes the
 * GET route. Routes are looked up by method and first segment, so a request is tested against a
 * handful of routes, not the whole table; every route must therefore start with a literal segment.
 */
export function createRouteMatcher<Entry extends { route: RouteSpec }>(
  entries: readonly Entry[],
): (method: string, path: string) => MatchedRoute<Entry> | undefined {
  const byMethod = new Map<string, Map<string, Compiled<Entry>[]>>();
  for (const entry of entries) {
    const segment = firstSegment(entry.route.path);
    if (segment.startsWith(':') || segment.startsWith('*')) {
      throw new Error(`route ${entry.route.operationId} must start with a literal segment`);
    }
    const compiled: Compiled<Entry> = {
      entry,
      matchPath: match(entry.route.path, { decode: false, sensitive: false, trailing: true }),
    };
    const bySegment = byMethod.get(entry.route.method) ?? new Map<string, Compiled<Entry>[]>();
    byMethod.set(entry.route.method, bySegment);
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), compiled]);
  }

  return (method, path) => {
    const candidates = byMethod.get(method === 'HEAD' ? 'GET' : method)?.get(firstSegment(path));
    if (!candidates) return undefined;
    for (const { entry, matchPath } of candidates) {
      const matched = matchPath(path);
      if (!matched) continue;
      return { entry, params: decodedParams(matched.params) };
    }
    return undefined;
  };
}

function decodedParams(raw: Partial<Record<string, string>>): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    // Most values have no escape to decode.
    if (!value.includes('%')) {
      params[name] = value;
      continue;
    }
    try {
      params[name] = decodeURIComponent(value);
    } catch {
      return undefined;
    }
  }
  return params;
}
