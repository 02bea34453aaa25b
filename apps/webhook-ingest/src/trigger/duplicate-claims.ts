import { z } from 'zod';
import { inflightClaimOf } from '@wap/contracts';
import { KvConflictError, decodeJson, encodeJson, type KvBucket } from '@wap/platform';

/**
 * Duplicate suppression by atomic KV create. Two kinds of key:
 * - an idempotency header value (bucket `webhook-idempotency`, expiring after the configured
 *   window): the value records the event and run it names and whether their run request is
 *   stored yet, so a repeat is answered only with an event that exists;
 * - a fingerprint (bucket WEBHOOK_INFLIGHT_BUCKET): value = the InflightClaim of the contract
 *   with workflow-runner; the runner deletes the key when the run ends.
 */
export const IDEMPOTENCY_BUCKET = 'webhook-idempotency';

const IdempotencyRecord = z.object({
  eventId: z.string(),
  runId: z.string(),
  stored: z.boolean(),
  /** When a still-unstored claim was made (ms); after the lease it may be taken over. */
  claimedAtMs: z.number(),
});
type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;

export interface HeldClaim {
  kind: 'held';
  eventId: string;
  runId: string;
  /** The key workflow-runner must delete when the run ends (fingerprints), else null. */
  inflightKey: string | null;
  /** The run request is stored: later repeats may be answered skipped. */
  confirm(): Promise<void>;
  /** The run request was not stored: give the key back so a retry is not taken for a duplicate. */
  release(): Promise<void>;
}
export type ClaimOutcome = HeldClaim | { kind: 'duplicate'; eventId: string };

export interface DuplicateClaimsDeps {
  idempotency: KvBucket;
  inflight: KvBucket;
  nowMs: () => number;
  /** A claim whose run request is not stored after this long was abandoned (its replica died). */
  leaseMs: number;
  /** How long a repeat waits for the first request to be stored before answering 503. */
  waitForFirstMs: number;
  /** First poll interval while waiting (ms); it doubles up to 16 times that. */
  pollMs: number;
  /** A fingerprint claim at least this old whose event has no run, or an ended one, is left over (ms). */
  inflightAbandonMs: number;
  /** Where the run the event started is; undefined when that cannot be told now. */
  runOfEvent: (eventId: string) => Promise<EventRunState | undefined>;
}

/** The event started no run, a run that is still going, or one that has ended. */
export type EventRunState = 'none' | 'active' | 'ended';

/** The first request still being stored did not finish in time: the sender should retry. */
export class ClaimPendingError extends Error {}

const LEFT_OVER_STATES = new Set<EventRunState | undefined>(['none', 'ended']);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function createDuplicateClaims(deps: DuplicateClaimsDeps) {
  function idempotencyClaim(key: string, record: IdempotencyRecord, revision: number): HeldClaim {
    let current = revision;
    return {
      kind: 'held',
      eventId: record.eventId,
      runId: record.runId,
      inflightKey: null,
      async confirm() {
        current = await deps.idempotency.update(
          key,
          encodeJson({ ...record, stored: true }),
          current,
        );
      },
      // Released, the record keeps its ids and is at once open to takeover: a retry reuses the
      // run id, so a run request that was stored after all (a lost ack) is deduplicated.
      async release() {
        current = await deps.idempotency.update(
          key,
          encodeJson({ ...record, claimedAtMs: 0 }),
          current,
        );
      },
    };
  }

  /**
   * Claims an idempotency value. A repeat of a stored event is a duplicate; a repeat of one
   * still being stored waits for it; an abandoned claim is taken over with its own event and
   * run ids, so a run request its first holder did store is deduplicated, not run twice.
   */
  async function claimIdempotency(
    key: string,
    fresh: { eventId: string; runId: string },
  ): Promise<ClaimOutcome> {
    const deadline = deps.nowMs() + deps.waitForFirstMs;
    // Many repeats may wait at once (a sender's burst of retries): back off, do not hammer KV.
    let pollMs = deps.pollMs;
    for (;;) {
      const record: IdempotencyRecord = { ...fresh, stored: false, claimedAtMs: deps.nowMs() };
      try {
        return idempotencyClaim(
          key,
          record,
          await deps.idempotency.create(key, encodeJson(record)),
        );
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
      const entry = await deps.idempotency.get(key);
      if (!entry) continue;
      const existing = IdempotencyRecord.parse(decodeJson(entry.value));
      if (existing.stored) return { kind: 'duplicate', eventId: existing.eventId };
      if (deps.nowMs() - existing.claimedAtMs > deps.leaseMs) {
        const takenOver = { ...existing, claimedAtMs: deps.nowMs() };
        try {
          const revision = await deps.idempotency.update(
            key,
            encodeJson(takenOver),
            entry.revision,
          );
          return idempotencyClaim(key, takenOver, revision);
        } catch (error) {
          if (!(error instanceof KvConflictError)) throw error;
          continue;
        }
      }
      if (deps.nowMs() >= deadline) throw new ClaimPendingError(key);
      await sleep(pollMs);
      pollMs = Math.min(pollMs * 2, deps.pollMs * 16);
    }
  }

  function fingerprintClaim(key: string, fresh: { eventId: string; runId: string }): HeldClaim {
    return {
      kind: 'held',
      ...fresh,
      inflightKey: key,
      confirm: async () => undefined,
      release: () => deps.inflight.delete(key),
    };
  }

  /**
   * Claims a fingerprint: held until workflow-runner deletes it at the end of the run. A claim
   * older than `inflightAbandonMs` is left over when its event never became a run (a replica
   * died before storing its request) or its run has ended (the runner died before deleting the
   * key): an identical request takes it over rather than being skipped for good.
   */
  async function claimFingerprint(
    key: string,
    fresh: { eventId: string; runId: string },
  ): Promise<ClaimOutcome> {
    for (;;) {
      const claim = encodeJson({ eventId: fresh.eventId, claimedAtMs: deps.nowMs() });
      try {
        await deps.inflight.create(key, claim);
        return fingerprintClaim(key, fresh);
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
      const entry = await deps.inflight.get(key);
      // Released between our create and get: the previous run ended, so this one may run.
      if (!entry) continue;
      const holder = inflightClaimOf(entry.value);
      const leftOver =
        holder === null ||
        (deps.nowMs() - holder.claimedAtMs > deps.inflightAbandonMs &&
          LEFT_OVER_STATES.has(await deps.runOfEvent(holder.eventId)));
      if (holder && !leftOver) return { kind: 'duplicate', eventId: holder.eventId };
      try {
        await deps.inflight.update(key, claim, entry.revision);
        return fingerprintClaim(key, fresh);
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
  }

  return { claimIdempotency, claimFingerprint };
}

export type DuplicateClaims = ReturnType<typeof createDuplicateClaims>;
