// Baseline (b): a bare HTTP server that turns each request into one NATS request/reply, the
// least a bus-forwarding gateway must do. The gateway is measured against this.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

const REQUEST_TIMEOUT_MS = 5000;

async function main(): Promise<void> {
  const nc: NatsConnection = await connect({ servers: (process.env['NATS_URL'] ?? '').split(',') });
  const subject = process.env['BENCH_SUBJECT'] ?? '';
  const server = createServer((req, res) => {
    // Carry what the gateway carries at minimum: the route and the caller's credentials.
    const request = JSON.stringify({
      method: req.method,
      path: req.url,
      cookie: req.headers.cookie ?? null,
    });
    nc.request(subject, request, { timeout: REQUEST_TIMEOUT_MS }).then(
      (reply) => {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': reply.data.length,
        });
        res.end(reply.data);
      },
      () => {
        res.writeHead(503).end();
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.once('SIGTERM', () => {
    server.close(() => {
      void nc.drain().then(() => process.exit(0));
    });
    server.closeAllConnections();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
