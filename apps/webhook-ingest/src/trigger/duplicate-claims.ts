import { z } from 'zod';
import { inflightClaimOf, type InflightClaim } from '@wap/contracts';
import { KvConflictError, decodeJson, encodeJson, type KvBucket } from '@wap/platform';

/**
 * Duplicate suppression by atomic KV create. Two kinds of key:
 * - an idempotency header value (bucket `webhook-idempotency`, expiring after the configured
 *   window): the value records the event and run it names and whether their run request is
 *   stored yet, so a repeat is answered only with an event that exists;
 * - a fingerprint (bucket WEBHOOK_INFLIGHT_BUCKET): value = the InflightClaim of the contract
 *   with workflow-runner; the runner deletes the key when the run ends.
 */
export { IDEMPOTENCY_BUCKET } from '@wap/contracts';

const IdempotencyRecord = z.object({
  eventId: z.string(),
  runId: z.string(),
  stored: z.boolean(),
  /** When a still-unstored claim was made (ms); after the lease it may be taken over. */
  claimedAtMs: z.number(),
  /** The replica holding a still-unstored claim: once it is dead, the claim may be taken over. */
  holder: z.string().optional(),
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
  /** This replica's id, and whether the replica holding a claim is still alive. */
  replica: { id: string; isAlive(replicaId: string): Promise<boolean> };
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/* eslint-disable-next-line max-lines-per-function --
  the two kinds of claim share the buckets, the lease and the wait for a first request */
export function createDuplicateClaims(deps: DuplicateClaimsDeps) {
  /** A holder other than this replica that is known to be dead. */
  async function heldByDeadReplica(holder: string | undefined): Promise<boolean> {
    if (holder === undefined || holder === deps.replica.id) return false;
    return !(await deps.replica.isAlive(holder));
  }

  function idempotencyClaim(key: string, record: IdempotencyRecord, revision: number): HeldClaim {
    let current = revision;
    /**
     * Writes the record at the revision this claim wrote last. A conflict means another replica
     * took the claim over, believing this one dead: it stores the same event and run ids, so
     * whichever of the two stores first, the request runs once.
     */
    async function write(next: IdempotencyRecord): Promise<void> {
      try {
        current = await deps.idempotency.update(key, encodeJson(next), current);
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
        const entry = await deps.idempotency.get(key);
        const now = entry ? IdempotencyRecord.parse(decodeJson(entry.value)) : undefined;
        if (now?.eventId !== record.eventId) throw error;
      }
    }
    return {
      kind: 'held',
      eventId: record.eventId,
      runId: record.runId,
      inflightKey: null,
      confirm: () => write({ ...record, stored: true }),
      // Released, the record keeps its ids and is at once open to takeover: a retry reuses the
      // run id, so a run request that was stored after all (a lost ack) is deduplicated.
      release: () => write({ ...record, claimedAtMs: 0 }),
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
      const record: IdempotencyRecord = {
        ...fresh,
        stored: false,
        claimedAtMs: deps.nowMs(),
        holder: deps.replica.id,
      };
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
      if (
        deps.nowMs() - existing.claimedAtMs > deps.leaseMs ||
        (await heldByDeadReplica(existing.holder))
      ) {
        const takenOver = { ...existing, claimedAtMs: deps.nowMs(), holder: deps.replica.id };
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

  function fingerprintClaim(key: string, ids: { eventId: string; runId: string }): HeldClaim {
    return {
      kind: 'held',
      ...ids,
      inflightKey: key,
      // The runner deletes the key when the run ends: nothing to write once it is stored.
      confirm: async () => undefined,
      async release() {
        // Not a claim another replica took over meanwhile (it believed this one dead).
        const entry = await deps.inflight.get(key);
        const claim = entry ? inflightClaimOf(entry.value) : null;
        if (claim?.holder === deps.replica.id && claim.eventId === ids.eventId) {
          await deps.inflight.delete(key);
        }
      },
    };
  }

  const claimValue = (ids: { eventId: string; runId: string }): InflightClaim => ({
    ...ids,
    claimedAtMs: deps.nowMs(),
    holder: deps.replica.id,
  });

  /**
   * The ids a takeover of `holder`'s claim stores its request under, or undefined while the
   * claim stands. It is left over once it is older than `inflightAbandonMs`, or at once when
   * its replica is dead, if its event never became a run (the replica died before storing the
   * request) or its run has ended (the runner died before deleting the key). A run request the
   * dead holder did store but the runner has not read yet also looks like no run: the takeover
   * then stores the holder's own ids, which the stream and the runner deduplicate.
   */
  async function takeoverIds(
    holder: InflightClaim,
    fresh: { eventId: string; runId: string },
  ): Promise<{ eventId: string; runId: string } | undefined> {
    const old = deps.nowMs() - holder.claimedAtMs > deps.inflightAbandonMs;
    if (!old && !(await heldByDeadReplica(holder.holder))) return undefined;
    const state = await deps.runOfEvent(holder.eventId);
    if (state === 'ended') return fresh;
    if (state !== 'none') return undefined;
    return holder.runId ? { eventId: holder.eventId, runId: holder.runId } : fresh;
  }

  /**
   * Claims a fingerprint: held until workflow-runner deletes it at the end of the run, and
   * taken over when it is left over (see `takeoverIds`) rather than skipped for good.
   */
  async function claimFingerprint(
    key: string,
    fresh: { eventId: string; runId: string },
  ): Promise<ClaimOutcome> {
    for (;;) {
      try {
        await deps.inflight.create(key, encodeJson(claimValue(fresh)));
        return fingerprintClaim(key, fresh);
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
      const entry = await deps.inflight.get(key);
      // Released between our create and get: the previous run ended, so this one may run.
      if (!entry) continue;
      const holder = inflightClaimOf(entry.value);
      const ids = holder === null ? fresh : await takeoverIds(holder, fresh);
      if (holder && !ids) return { kind: 'duplicate', eventId: holder.eventId };
      const taken = ids ?? fresh;
      try {
        await deps.inflight.update(key, encodeJson(claimValue(taken)), entry.revision);
        return fingerprintClaim(key, taken);
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
  }

  return { claimIdempotency, claimFingerprint };
}

export type DuplicateClaims = ReturnType<typeof createDuplicateClaims>;
