import type { Logger } from 'pino';
import { REPLICAS_BUCKET, webhookReplicaAliveSubject } from '@wap/contracts';
import { NoRespondersError, type Bus, type Kv } from '@wap/platform';

/**
 * KV bucket where each webhook-ingest replica keeps a key of its own alive: the key expires
 * `ttlMs` after the replica's last heartbeat.
 */

export interface ReplicaLiveness {
  /** This replica's id, written into the claims it takes. */
  readonly id: string;
  /** False once `replicaId` is known dead; true while it answers, or cannot be told from slow. */
  isAlive(replicaId: string): Promise<boolean>;
  /** Stops answering and beating, so that claims this replica still holds are free at once. */
  stop(): Promise<void>;
}

/**
 * Tells a dead replica from a slow one (decision 91). A process that died has closed its NATS
 * connection, so its own subject has no responders: known at once. A replica cut off without a
 * closed connection (a host or network failure) stops renewing its KV key, which expires after
 * `ttlMs`. A replica that is there but does not answer within `probeTimeoutMs` is slow, not
 * dead: its claims stand.
 */
export async function startReplicaLiveness(deps: {
  kv: Kv;
  bus: Bus;
  id: string;
  heartbeatMs: number;
  ttlMs: number;
  probeTimeoutMs: number;
  nowMs: () => number;
  logger: Logger;
}): Promise<ReplicaLiveness> {
  const bucket = await deps.kv.bucket(REPLICAS_BUCKET, { ttlMs: deps.ttlMs });
  const beat = () => bucket.put(deps.id, new TextEncoder().encode(String(deps.nowMs())));
  // A new replicated bucket may still elect its leader when a fresh cluster starts: the first
  // write then times out, and the replica died at start. It has claimed nothing yet, so no
  // other replica needs its heartbeat before the next one, a heartbeat period later.
  await beat().catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'the first replica heartbeat could not be written');
  });
  const answering = deps.bus.serve(webhookReplicaAliveSubject(deps.id), async () => ({
    data: new Uint8Array(),
  }));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let pending: Promise<unknown> = Promise.resolve();
  // One heartbeat at a time: a slow KV must not pile puts up behind each other.
  const schedule = () => {
    timer = setTimeout(() => {
      pending = beat()
        .catch((error: unknown) => {
          deps.logger.warn({ err: error }, 'the replica heartbeat could not be written');
        })
        .finally(() => {
          if (!stopped) schedule();
        });
    }, deps.heartbeatMs);
  };
  schedule();

  async function answers(replicaId: string): Promise<boolean> {
    try {
      await deps.bus.request(webhookReplicaAliveSubject(replicaId), new Uint8Array(), {
        timeoutMs: deps.probeTimeoutMs,
      });
      return true;
    } catch (error) {
      if (error instanceof NoRespondersError) return false;
      return true;
    }
  }

  return {
    id: deps.id,
    async isAlive(replicaId) {
      if (replicaId === deps.id) return true;
      try {
        if ((await bucket.get(replicaId)) === null) return false;
      } catch (error) {
        deps.logger.warn({ err: error }, 'could not read whether a replica is alive');
      }
      return answers(replicaId);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await answering.unsubscribe();
      await pending;
      await bucket.delete(deps.id);
    },
  };
}
