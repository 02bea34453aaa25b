import type { Express, Request } from 'express';
import { AppError } from '@wap/contracts';
import { metrics, renderMetrics } from '@wap/observability';
import { metricsCheck, UNMATCHED_ROUTE, type MetricsAccess } from '@wap/http';

/** Records one answered request; `started` is from `process.hrtime.bigint()`. */
export function observeRequest(
  method: string,
  route: string,
  status: number,
  started: bigint,
): void {
  metrics.httpRequestDuration
    .labels(method, route, String(status))
    .observe(Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * The route template Express matched for one of the gateway's own routes, never the path
 * itself, so the series stay bounded: requests no route took share one label, as do the web
 * app's assets. (The edge labels the table's routes itself.)
 */
export function routeLabelOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return path;
  if (Array.isArray(path)) return path.join(',');
  if (req.originalUrl.startsWith('/assets/')) return '/assets/*';
  return UNMATCHED_ROUTE;
}

/**
 * `GET /metrics`: the process's Prometheus scrape (on the embedded runtime, every service's),
 * behind a bearer token when one is configured (decision 93).
 */
export function mountMetrics(app: Express, access: MetricsAccess): void {
  if (access.kind === 'none') return;
  const check = metricsCheck(access);
  app.get('/metrics', (req, res, next) => {
    if (check(req.get('authorization')) !== 'allowed') {
      next(new AppError('UNAUTHORIZED', 'A metrics token is required'));
      return;
    }
    renderMetrics().then(({ contentType, body }) => {
      res.setHeader('Content-Type', contentType);
      res.setHeader('Cache-Control', 'no-store');
      res.end(body);
    }, next);
  });
}
