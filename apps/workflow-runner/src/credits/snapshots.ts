import type { Logger } from 'pino';
import { CREDIT_BALANCES_BUCKET, creditBalanceKey, type CreditSnapshot } from '@wap/contracts';
import { encodeJson, KvConflictError, type Kv, type KvBucket } from '@wap/platform';
import type { CreditLedger } from './ledger';

/** Compare-and-set retries before one publish gives up (each retry re-reads the ledger). */
const MAX_PUBLISH_ATTEMPTS = 10;
const REPUBLISH_CONCURRENCY = 16;

export interface CreditSnapshots {
  /** Writes the workspace's current balance to the `credit-balances` bucket; failures are logged. */
  publish(workspaceId: string): Promise<void>;
  /** Republishes every workspace's balance (at start). */
  publishAll(): Promise<void>;
}

/**
 * Publishes balances for webhook-ingest's 402 check. Replicas publish concurrently, so the entry's
 * revision is read before the ledger and the write is a compare-and-set: a publisher whose ledger
 * read may be stale loses the race and reads again, and the last write is always the latest sum.
 */
export async function createCreditSnapshots(deps: {
  kv: Kv;
  ledger: CreditLedger;
  logger: Logger;
}): Promise<CreditSnapshots> {
  const bucket: KvBucket = await deps.kv.bucket(CREDIT_BALANCES_BUCKET);

  async function publish(workspaceId: string): Promise<void> {
    const key = creditBalanceKey(workspaceId);
    for (let attempt = 1; attempt <= MAX_PUBLISH_ATTEMPTS; attempt += 1) {
      const current = await bucket.get(key);
      const snapshot: CreditSnapshot = { balance: await deps.ledger.balanceOf(workspaceId) };
      try {
        if (current) await bucket.update(key, encodeJson(snapshot), current.revision);
        else await bucket.create(key, encodeJson(snapshot));
        return;
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
    throw new Error(`credit balance of ${workspaceId} kept changing while being published`);
  }

  return {
    async publish(workspaceId) {
      // The ledger is committed already; the next change or the republish at start repairs a
      // failed publish, so it is logged rather than failing the grant or the run.
      try {
        await publish(workspaceId);
      } catch (error) {
        deps.logger.error({ err: error, workspaceId }, 'publishing a credit balance failed');
      }
    },
    async publishAll() {
      const ids = await deps.ledger.workspaceIds();
      for (let start = 0; start < ids.length; start += REPUBLISH_CONCURRENCY) {
        await Promise.all(ids.slice(start, start + REPUBLISH_CONCURRENCY).map(publish));
      }
      deps.logger.info({ workspaces: ids.length }, 'credit balances republished');
    },
  };
}
