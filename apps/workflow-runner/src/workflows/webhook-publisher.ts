import type { Logger } from 'pino';
import { WEBHOOKS_BUCKET, webhookKey, type WebhookAddress } from '@wap/contracts';
import { encodeJson, KvConflictError, type Kv, type KvBucket } from '@wap/platform';
import { toWorkflow, type WorkflowRepository, type WorkflowRow } from './repository';

const MAX_PUBLISH_ATTEMPTS = 10;
const REPUBLISH_CONCURRENCY = 16;

export interface WebhookPublisher {
  /**
   * Writes the workflow's address to the `webhooks` bucket as the database has it now, or
   * deletes it when the workflow or its trigger is gone; `retiredWebhookIds` are addresses the
   * workflow no longer has (a removed trigger), deleted too. Never throws: failures are logged.
   */
  publish(workflowId: string, retiredWebhookIds?: readonly string[]): Promise<void>;
  /** Republishes every address and deletes keys that belong to no workflow any more. */
  publishAll(): Promise<void>;
}

export function webhookAddressOf(row: WorkflowRow): WebhookAddress | null {
  if (!row.webhookId || row.deletedAt) return null;
  const workflow = toWorkflow(row);
  return {
    webhookId: row.webhookId,
    workflowId: row.id,
    workspaceId: row.workspaceId,
    status: workflow.status,
    customResponse: workflow.trigger?.customResponse ?? null,
    runningHours: workflow.settings.runningHours,
    queueOutsideWindow: workflow.settings.queueOutsideWindow,
    creditCost: workflow.credit_cost,
  };
}

export async function createWebhookPublisher(deps: {
  kv: Kv;
  workflows: WorkflowRepository;
  logger: Logger;
}): Promise<WebhookPublisher> {
  const bucket: KvBucket = await deps.kv.bucket(WEBHOOKS_BUCKET);

  /**
   * The entry's revision is read before the database and the write is a compare-and-set, so a
   * replica with a stale read loses the race and reads again: the last write is the newest state.
   */
  async function publishAddress(webhookId: string): Promise<void> {
    const key = webhookKey(webhookId);
    for (let attempt = 1; attempt <= MAX_PUBLISH_ATTEMPTS; attempt += 1) {
      const current = await bucket.get(key);
      const row = await deps.workflows.findByWebhook(webhookId);
      // What the address answers is the live version's, not that of edits not yet published.
      const address = row ? webhookAddressOf(await deps.workflows.published(row)) : null;
      if (!address) {
        // Addresses are never reused, so a deletion cannot race a later write of the same key.
        await bucket.delete(key);
        return;
      }
      try {
        if (current) await bucket.update(key, encodeJson(address), current.revision);
        else await bucket.create(key, encodeJson(address));
        return;
      } catch (error) {
        if (!(error instanceof KvConflictError)) throw error;
      }
    }
    throw new Error(`webhook ${webhookId} kept changing while being published`);
  }

  return {
    async publish(workflowId, retiredWebhookIds = []) {
      // The change is committed already; a failed publish is repaired by the next change of the
      // workflow or by the republish at start, so it is logged rather than failing the request.
      try {
        for (const webhookId of retiredWebhookIds) await bucket.delete(webhookKey(webhookId));
        const row = await deps.workflows.findAny(workflowId);
        if (row?.webhookId) await publishAddress(row.webhookId);
      } catch (error) {
        deps.logger.error({ err: error, workflowId }, 'publishing a webhook address failed');
      }
    },
    async publishAll() {
      const rows = await deps.workflows.listWithTrigger();
      const webhookIds = rows.flatMap((row) => (row.webhookId ? [row.webhookId] : []));
      for (let start = 0; start < webhookIds.length; start += REPUBLISH_CONCURRENCY) {
        await Promise.all(
          webhookIds.slice(start, start + REPUBLISH_CONCURRENCY).map(publishAddress),
        );
      }
      // A crash between a database change and its publish can leave a retired key behind.
      const current = new Set(webhookIds.map(webhookKey));
      const stale = (await bucket.keys()).filter(
        (key) => key.startsWith(webhookKey('')) && !current.has(key),
      );
      for (const key of stale) await bucket.delete(key);
      deps.logger.info(
        { addresses: webhookIds.length, removed: stale.length },
        'webhook addresses republished',
      );
    },
  };
}
