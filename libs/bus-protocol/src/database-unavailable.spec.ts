import { sql } from 'drizzle-orm';
import pino from 'pino';
import { z } from 'zod';
import { createBusSigner, createBusVerifier, generateBusKeySet } from '@wap/auth';
import { createDistributedPlatform, createEmbeddedBus, type Platform } from '@wap/platform';
import { trustedBus } from './bus-trust';
import { callApi, serveApi } from './rpc';

// @wap/testing builds on this lib, so this spec reads the servers' URLs itself.
const DATABASE_URL = process.env['DATABASE_URL'] || 'postgres://postgres@127.0.0.1:5432/postgres';
const NATS_URL = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';

let platform: Platform;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  platform = await createDistributedPlatform({
    natsUrl: NATS_URL,
    databaseUrl: DATABASE_URL,
    serviceName: 'bus-protocol-spec',
    logger,
    poolSize: 1,
  });
});

afterAll(async () => {
  await platform.close();
});

test('a bus handler whose database connection is terminated answers SERVICE_UNAVAILABLE (503), not INTERNAL_ERROR', async () => {
  const embeddedBus = createEmbeddedBus(logger);
  const keys = generateBusKeySet('spec');
  const bus = trustedBus(embeddedBus, {
    signer: await createBusSigner(keys.signingKeys.storage),
    verifier: await createBusVerifier(keys.trustedKeys, {
      now: () => platform.clock.now().getTime(),
    }),
    logger,
    subjects: (subject: string) => ({
      subject,
      server: 'storage',
      callers: ['storage'],
      user: false,
    }),
  });
  // The server ends the handler's own connection (57P01, as in a restart or failover).
  const served = serveApi(
    bus,
    { subject: 'test.api.read_row.v1', request: z.object({}), reply: z.unknown() },
    () => platform.sql.db.execute(sql`select pg_terminate_backend(pg_backend_pid())`),
    { queue: 'test', logger },
  );
  try {
    const failure = await callApi(
      bus,
      { subject: 'test.api.read_row.v1', request: z.unknown(), reply: z.unknown() },
      {},
      {
        timeoutMs: 5_000,
      },
    ).then(
      () => new Error('the call succeeded'),
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
  } finally {
    await served.unsubscribe();
    await embeddedBus.close();
  }
});
