import type { Express, Request, Response } from 'express';
import { AppError } from '@wap/contracts';
import { metrics, renderMetrics } from '@wap/observability';
import { metricsCheck, type MetricsAccess } from '@wap/http';
import { DISPATCHED_ROUTE } from '../routing/forward';

/** The route label of a request no route of the table (or of the gateway) answered. */
export const UNMATCHED_ROUTE = 'unmatched';

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
 * The route template the table's dispatch or Express matched (`/workflows/:workflowId`), never the path itself, so the
 * series stay bounded: requests no route took share one label, as do the web app's assets.
 */
export function routeLabelOf(req: Request, res: Response): string {
  const dispatched: unknown = res.locals[DISPATCHED_ROUTE];
  if (typeof dispatched === 'string') return dispatched;
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
