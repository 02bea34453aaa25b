// The far side of baseline (b): answers every request on the bench subject with the body
// GET /me returns, without parsing it, as a service with no work to do would.
import type { NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

async function main(): Promise<void> {
  const body = new TextEncoder().encode(process.env['BENCH_RESPONSE_BODY'] ?? '{}');
  const nc: NatsConnection = await connect({ servers: (process.env['NATS_URL'] ?? '').split(',') });
  nc.subscribe(process.env['BENCH_SUBJECT'] ?? '', {
    callback: (error, message) => {
      if (!error) message.respond(body);
    },
  });
  // The subscription is registered on the server once a flush round trip has completed.
  await nc.flush();
  process.send?.({ ready: true });
  process.once('SIGTERM', () => {
    void nc.drain().then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
