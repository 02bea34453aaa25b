// Baseline: the least a webhook receiver that loses nothing must do — parse the JSON body and
// publish it once to JetStream, answering only after the ack. The platform is measured against it.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

async function main(): Promise<void> {
  const nc = await connect({ servers: (process.env['NATS_URL'] ?? '').split(',') });
  const stream = process.env['BENCH_STREAM'] ?? '';
  const subject = process.env['BENCH_SUBJECT'] ?? '';
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [subject] });
  const js = jetstream(nc);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const eventId = randomUUID();
      js.publish(subject, JSON.stringify({ eventId, body }), { msgID: eventId }).then(
        () => {
          const reply = JSON.stringify({ success: true, eventId });
          res.writeHead(200, {
            'content-type': 'application/json; charset=utf-8',
            'content-length': Buffer.byteLength(reply),
          });
          res.end(reply);
        },
        () => {
          res.writeHead(503).end();
        },
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
  process.once('SIGTERM', () => {
    server.close(() => {
      void jsm.streams
        .delete(stream)
        .catch(() => undefined)
        .then(() => nc.drain())
        .then(() => process.exit(0));
    });
    server.closeAllConnections();
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
