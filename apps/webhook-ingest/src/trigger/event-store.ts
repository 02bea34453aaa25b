import type { Logger } from 'pino';
import {
  AppError,
  redactCredentialHeaders,
  REQUEST_BODIES_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOK_RECEIVED_SUBJECT,
  webhookKey,
  type RawServiceRequest,
  type WebhookAddress,
  type WebhookPayload,
  type WebhookReceived,
} from '@wap/contracts';
import { encodeJson } from '@wap/platform';
import { INLINE_BODY_LIMIT_BYTES, injectTraceHeaders } from '@wap/bus-protocol';
import type { DeliverySource, TriggerDeps } from './trigger-deps';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The webhook could not be stored; please retry');
}

/** The address a webhook id names, refused as the spec says when it or its workspace is gone. */
export async function resolveAddress(
  deps: Pick<TriggerDeps, 'addresses' | 'directory'>,
  webhookId: string,
): Promise<WebhookAddress> {
  const notFound = () => new AppError('NOT_FOUND', 'Webhook not found', { exposeCode: false });
  if (!UUID.test(webhookId)) throw notFound();
  const key = webhookKey(webhookId.toLowerCase());
  const address = deps.addresses.cached(key) ?? (await deps.addresses.confirmed(key));
  if (!address) throw notFound();
  const workspace = await deps.directory.confirmedWorkspace(address.workspaceId);
  if (workspace?.deleted) {
    throw new AppError('GONE', 'Workspace has been deleted', { exposeCode: false });
  }
  return address;
}

/**
 * Inline when it fits a stream message with room for headers, else in the object store: where
 * the gateway parked it (kept, not copied: decision 126), or put there now when the request
 * came in by the direct door. Whoever stores the event deletes the object.
 */
export async function payloadOf(
  platform: TriggerDeps['platform'],
  eventId: string,
  request: RawServiceRequest,
  body: unknown,
): Promise<WebhookPayload> {
  if (request.body.length <= INLINE_BODY_LIMIT_BYTES) return { kind: 'inline', body };
  if (request.parkedBody) {
    request.parkedBody.keep();
    const { ref } = request.parkedBody;
    return { kind: 'object', bucket: REQUEST_BODIES_BUCKET, name: ref.name, size: ref.size };
  }
  const info = await platform.objects.put(
    WEBHOOK_PAYLOADS_BUCKET,
    eventId,
    (async function* () {
      yield request.body;
    })(),
    { contentType: 'application/json' },
  );
  return { kind: 'object', bucket: WEBHOOK_PAYLOADS_BUCKET, name: info.name, size: info.size };
}

/** One request as the event it is stored as. */
export interface StoredRequest {
  address: WebhookAddress;
  eventId: string;
  request: RawServiceRequest;
  payload: WebhookPayload;
  source: DeliverySource | undefined;
}

/**
 * Stores the request as one WEBHOOK_EVENTS message: its test event and, when it starts a run,
 * the run. Answering 200 waits for JetStream's acknowledgement of this message.
 */
export async function storeEvent(
  platform: TriggerDeps['platform'],
  { address, eventId, request, payload, source }: StoredRequest,
  run?: WebhookReceived['run'],
): Promise<void> {
  const data: WebhookReceived = {
    eventId,
    webhookId: address.webhookId,
    workflowId: address.workflowId,
    workspaceId: address.workspaceId,
    receivedAt: platform.clock.now().toISOString(),
    // Everything the gateway forwarded, lower-cased; members read it, so no credential's value.
    headers: redactCredentialHeaders(request.headers),
    payload,
    ...(source ? { source } : {}),
    ...(run ? { run } : {}),
  };
  await platform.streams.publish(
    WEBHOOK_RECEIVED_SUBJECT,
    encodeJson({ type: WEBHOOK_RECEIVED_SUBJECT, id: eventId, time: data.receivedAt, data }),
    { messageId: eventId, headers: injectTraceHeaders() },
  );
}

/** A store failure other than a refusal is the spec's retryable 503, with the cause logged. */
export async function withStored<T>(logger: Logger, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) throw error;
    logger.warn({ err: error }, 'storing a webhook request failed');
    throw unavailable();
  }
}
