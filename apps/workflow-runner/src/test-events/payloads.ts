import type { WebhookPayload } from '@wap/contracts';
import type { ObjectStore } from '@wap/platform';

/**
 * The JSON body a webhook payload carries: inline, or parked by webhook-ingest in the object
 * store. A parked body that is gone (or not JSON) reads as null; the event is kept without it.
 */
export async function readWebhookPayload(
  objects: ObjectStore,
  payload: WebhookPayload,
): Promise<{ body: unknown; missing: boolean }> {
  if (payload.kind === 'inline') return { body: payload.body, missing: false };
  const stored = await objects.get(payload.bucket, payload.name);
  if (!stored) return { body: null, missing: true };
  const chunks: Uint8Array[] = [];
  for await (const chunk of stored.content) chunks.push(chunk);
  try {
    return { body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown, missing: false };
  } catch {
    return { body: null, missing: true };
  }
}
