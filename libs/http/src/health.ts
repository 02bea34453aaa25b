import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { renderMetrics } from '@wap/observability';
import { metricsCheck, type MetricsAccess } from './metrics-access';
import { closeWhenIdle } from './server-close';

export interface HealthServer {
  port: number;
  /** Makes /readyz answer 503 (used while draining), then stops listening. */
  close(): Promise<void>;
}

/**
 * /healthz answers 200 while the process runs; /readyz answers 200 only while `isReady()` holds,
 * so Kubernetes stops routing to a replica that lost its connections or is draining; /metrics is
 * the Prometheus scrape of the process, as `metricsAccess` allows (never open in production).
 */
export async function startHealthServer(options: {
  port: number;
  host?: string;
  isReady: () => boolean;
  metricsAccess: MetricsAccess;
  logger: Logger;
}): Promise<HealthServer> {
  let draining = false;
  const checkMetrics = metricsCheck(options.metricsAccess);
  const server: Server = createServer((req, res) => {
    const path = req.url?.split('?')[0];
    if (path === '/healthz') return send(res, 200, { status: 'ok' });
    if (path === '/readyz') {
      const ready = !draining && options.isReady();
      return send(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready' });
    }
    const metricsAccess = path === '/metrics' ? checkMetrics(req.headers.authorization) : 'hidden';
    if (path === '/metrics' && metricsAccess === 'refused') {
      return send(res, 401, { error: 'A metrics token is required', code: 'UNAUTHORIZED' });
    }
    if (metricsAccess === 'allowed') {
      renderMetrics().then(
        ({ contentType, body }) => {
          res.writeHead(200, { 'content-type': contentType });
          res.end(body);
        },
        (error: unknown) => {
          options.logger.error({ err: error }, 'metrics could not be rendered');
          send(res, 500, { error: 'Internal server error', code: 'INTERNAL_ERROR' });
        },
      );
      return;
    }
    return send(res, 404, { error: 'Not found', code: 'ROUTE_NOT_FOUND' });
  });
  const closeServer = closeWhenIdle(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ port }, 'health endpoints listening');
  return {
    port,
    close: async () => {
      draining = true;
      await closeServer();
    },
  };
}

function send(res: ServerResponse, status: number, body: Record<string, string>): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
