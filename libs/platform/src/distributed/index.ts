import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { nkeyAuthenticator } from '@nats-io/nats-core';
import { Kvm } from '@nats-io/kv';
import { Objm } from '@nats-io/obj';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { Logger } from 'pino';
import type { Clock, IdSource, Platform, Sql } from '../platform';
import { createNatsBus } from './bus';
import { OpenResources } from './inflight';
import { createNatsKv } from './kv';
import { connectNats } from './nats-connection';
import { createNatsObjectStore } from './objects';
import { createPostgresSql } from './sql';
import { createJetStreamStreams } from './streams';

export interface DistributedPlatformOptions {
  /** NATS server URL(s), comma separated, e.g. `nats://nats:4222`. */
  natsUrl: string;
  /** PostgreSQL connection string; absent for a process that keeps nothing (the gateway). */
  databaseUrl?: string;
  /** Name of the service; it names the NATS connection for monitoring. */
  serviceName: string;
  logger: Logger;
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Defaults to random UUIDs. */
  ids?: IdSource;
  /** Maximum PostgreSQL connections in the pool. Default 10. */
  poolSize?: number;
  /**
   * How this process proves who it is to NATS: its NKey seed (`SU...`), and the inbox prefix its
   * user may subscribe to, so that replies to it reach it alone (decision 113).
   */
  nats?: { nkeySeed?: string; inboxPrefix?: string; tlsCaFile?: string };
  /**
   * Copies JetStream keeps of every stream, KV bucket and object bucket this process creates:
   * 3 on a production cluster, so that losing a node loses nothing acknowledged. Default 1.
   */
  replicas?: number;
}

const systemClock: Clock = { now: () => new Date() };
const randomIds: IdSource = { uuid: () => randomUUID() };

/** The production runtime: NATS (core, JetStream, KV, Object Store) and PostgreSQL. */
export async function createDistributedPlatform(
  options: DistributedPlatformOptions,
): Promise<Platform> {
  const logger = options.logger.child({ component: 'platform', runtime: 'distributed' });
  const nc = await connectNats({
    servers: options.natsUrl.split(',').map((server) => server.trim()),
    name: options.serviceName,
    // A service outlives NATS restarts and failovers: it never gives up reconnecting, and tries
    // again every half second (not the client's 2 s), so a cluster restarted whole is back in use
    // within a second of answering rather than a few rounds of waits later.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // A server shutting down may still accept a connection it will never answer: the client's
    // default waits 20 s on such an attempt before trying again. Two seconds is ample for a
    // handshake on loopback or within a cluster.
    timeout: 2_000,
    // Otherwise every request and JetStream publish builds an Error up front, for a stack
    // trace that only a failure would show: a measurable share of the CPU on hot paths.
    noAsyncTraces: true,
    ...(options.nats?.nkeySeed
      ? { authenticator: nkeyAuthenticator(new TextEncoder().encode(options.nats.nkeySeed)) }
      : {}),
    ...(options.nats?.inboxPrefix ? { inboxPrefix: options.nats.inboxPrefix } : {}),
    ...(options.nats?.tlsCaFile ? { tls: { caFile: options.nats.tlsCaFile } } : {}),
  });
  let jsm: JetStreamManager;
  try {
    // Fails when the server has no JetStream: better now than on the first stream or KV call.
    jsm = await jetstreamManager(nc);
  } catch (error) {
    await nc.close();
    throw error;
  }
  const js = jetstream(nc);
  let natsConnected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') {
        natsConnected = false;
        logger.warn({ server: status.server }, 'nats disconnected');
      } else if (status.type === 'reconnect') {
        natsConnected = true;
        logger.info({ server: status.server }, 'nats reconnected');
      } else if (status.type === 'error') {
        logger.error({ err: status.error }, 'nats server error');
      }
    }
  })();

  const pool = options.databaseUrl
    ? new Pool({
        connectionString: options.databaseUrl,
        max: options.poolSize ?? 10,
        application_name: options.serviceName,
      })
    : undefined;
  // An idle client losing its connection emits here; without a listener it would crash the process.
  // pg attaches the whole client (sockets, type tables, connection parameters) to this error:
  // kilobytes of internals per line, so only the code and message are logged.
  pool?.on('error', (error: Error & { code?: string }) =>
    logger.error({ code: error.code, reason: error.message }, 'postgres idle client failed'),
  );
  // A client checked out of the pool has no listener of its own: losing its connection between
  // two statements (PostgreSQL restarting mid-transaction) would be an unhandled 'error' event,
  // which ends the process. The statement that follows fails, and the pool drops the client.
  pool?.on('connect', (client) =>
    client.on('error', (error: Error & { code?: string }) =>
      logger.warn({ code: error.code, reason: error.message }, 'postgres connection lost'),
    ),
  );

  const open = new OpenResources();
  const replicas = options.replicas ?? 1;
  let closed: Promise<void> | undefined;

  return {
    runtime: 'distributed',
    bus: createNatsBus(nc, open, logger),
    streams: createJetStreamStreams(js, jsm, open, logger, replicas),
    kv: createNatsKv(new Kvm(js), jsm, open, logger, replicas),
    objects: createNatsObjectStore(new Objm(js), jsm, replicas),
    sql: pool ? createPostgresSql(pool) : noDatabase(options.serviceName),
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIds,
    isReady: () => natsConnected && !nc.isClosed() && !nc.isDraining() && closed === undefined,
    close() {
      closed ??= (async () => {
        // Handlers still running get to reply, ack and finish before the connection drains.
        await open.stopAll();
        await nc.drain();
        await pool?.end();
      })();
      return closed;
    },
  };
}

/** The SQL of a process configured without a database: any use is a wiring bug, said loudly. */
function noDatabase(serviceName: string): Sql {
  const refuse = (): never => {
    throw new Error(`${serviceName} was started without a database (no databaseUrl)`);
  };
  return {
    get db(): never {
      return refuse();
    },
    migrate: async () => refuse(),
  };
}
