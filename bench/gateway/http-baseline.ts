// Baseline (a): the cheapest possible HTTP server answering the body GET /me returns, so the
// table shows what Node's HTTP stack alone costs on this machine.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const body = Buffer.from(process.env['BENCH_RESPONSE_BODY'] ?? '{}');
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': body.length,
};

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
