import type { Logger } from 'pino';
import {
  AppError,
  PROVIDER_SIGNATURE_HEADERS,
  REQUEST_BODIES_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOK_RECEIVED_SUBJECT,
  creditBalanceKey,
  creditShortfallMessage,
  insufficientCreditsReply,
  webhookKey,
  type CreditSnapshot,
  type RawServiceRequest,
  type WebhookReceived,
  type ServiceReply,
  type WebhookAddress,
  type WebhookInactiveResponse,
  type WebhookPayload,
  type WebhookTriggeredResponse,
} from '@wap/contracts';
import { encodeJson, type Platform, type KvMirror } from '@wap/platform';
import { INLINE_BODY_LIMIT_BYTES, injectTraceHeaders } from '@wap/bus-protocol';
import type { DirectoryClient } from '@wap/workspace-directory';
import type { WebhookIngestConfig } from '../config';
import type { Delivery } from '../http/deliveries';
import { renderCustomResponse } from './custom-response';
import { ClaimPendingError, type DuplicateClaims } from './duplicate-claims';
import { parseJsonBody } from './json-body';
import type { RateLimiter } from '@wap/http';
import { fingerprintKey, idempotencyKey, idempotencyValueOf } from './request-identity';
import { checkRunningHours } from '@wap/contracts';

export const INACTIVE_MESSAGE = 'Webhook is inactive. Test payload saved.';

/** The provider delivery a request to an address carries, when it came from a signed endpoint. */
export type DeliverySource = NonNullable<WebhookReceived['source']>;

export interface TriggerDeps {
  platform: Pick<Platform, 'streams' | 'objects' | 'clock' | 'ids'>;
  addresses: KvMirror<WebhookAddress>;
  credits: KvMirror<CreditSnapshot>;
  directory: DirectoryClient;
  claims: DuplicateClaims;
  rateLimiter: RateLimiter;
  config: WebhookIngestConfig;
  logger: Logger;
}

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Webhook not found', { exposeCode: false });
}

function unavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'The webhook could not be stored; please retry');
}

/** Request headers kept with the event: everything the gateway forwarded, lower-cased. */
function eventHeaders(request: RawServiceRequest): Record<string, string> {
  return { ...request.headers };
}

export function createTriggerHandlers(deps: TriggerDeps) {
  const { platform, config } = deps;
  const configuredOrigin = config.publicBaseUrl?.replace(/\/$/, '');

  /**
   * A request that came over plain http is sent to the https address with 308, which keeps
   * the method and the body: PUBLIC_BASE_URL when it is an https origin, else the request's host.
   * Loopback hosts are exempt: there is no TLS on a developer machine.
   */
  function httpsRedirect(request: RawServiceRequest): ServiceReply | undefined {
    if (!config.httpsRedirect || request.protocol === 'https') return undefined;
    if (LOOPBACK_HOSTS.test(request.host)) return undefined;
    const origin = configuredOrigin?.startsWith('https:')
      ? configuredOrigin
      : `https://${request.host}`;
    return {
      status: 308,
      headers: { location: `${origin}${request.path}` },
      body: { error: 'Use the https address of this webhook' },
    };
  }

  /** PUBLIC_BASE_URL, else the request's host over https (plain http only on loopback). */
  function publicOrigin(request: RawServiceRequest): string {
    if (configuredOrigin) return configuredOrigin;
    const plainHttp = request.protocol !== 'https' && LOOPBACK_HOSTS.test(request.host);
    return `${plainHttp ? 'http' : 'https'}://${request.host}`;
  }

  async function resolveAddress(webhookId: string): Promise<WebhookAddress> {
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
  async function payloadOf(
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

  /**
   * Stores the request as one WEBHOOK_EVENTS message: its test event and, when it starts a run,
   * the run. Answering 200 waits for JetStream's acknowledgement of this message.
   */
  async function storeEvent(
    address: WebhookAddress,
    eventId: string,
    request: RawServiceRequest,
    payload: WebhookPayload,
    source: DeliverySource | undefined,
    run?: WebhookReceived['run'],
  ): Promise<void> {
    const data: WebhookReceived = {
      eventId,
      webhookId: address.webhookId,
      workflowId: address.workflowId,
      workspaceId: address.workspaceId,
      receivedAt: platform.clock.now().toISOString(),
      headers: eventHeaders(request),
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

  /** 402 body of the spec, or undefined when the balance covers one run. */
  async function creditRefusal(address: WebhookAddress): Promise<ServiceReply | undefined> {
    const key = creditBalanceKey(address.workspaceId);
    // No snapshot yet: the workspace never had credits.
    const shortfall = (snapshot: CreditSnapshot | undefined) =>
      creditShortfallMessage(snapshot?.balance ?? 0, address.creditCost);
    let message = shortfall(deps.credits.cached(key));
    // A grant may have landed a moment ago: confirm a refusal against KV itself.
    if (message) message = shortfall(await deps.credits.confirmed(key));
    if (!message) return undefined;
    return insufficientCreditsReply(message);
  }

  /** The Custom Response replaces a 200 body when it is on and every value can be filled. */
  function success(
    address: WebhookAddress,
    body: unknown,
    standard: WebhookTriggeredResponse | WebhookInactiveResponse,
    outcome: Pick<Delivery, 'outcome' | 'reason'>,
  ): Delivery {
    if (address.customResponse?.enabled) {
      const custom = renderCustomResponse(address.customResponse.body, body);
      if (custom) return { reply: custom, ...outcome };
    }
    return { reply: { status: 200, body: standard }, ...outcome };
  }

  const refused = (reply: ServiceReply, reason: string): Delivery => ({
    reply,
    outcome: 'refused',
    reason,
  });

  async function withStored<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      deps.logger.warn({ err: error }, 'storing a webhook request failed');
      throw unavailable();
    }
  }

  async function trigger(request: RawServiceRequest): Promise<Delivery> {
    const redirect = httpsRedirect(request);
    if (redirect) return refused(redirect, 'https_redirect');
    if (request.body.length > config.bodyLimitBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', 'The body is larger than the limit');
    }
    const webhookId = request.params['webhookId'] ?? '';
    const limited = deps.rateLimiter.take(webhookId);
    if (!limited.allowed) {
      const retryAfterSeconds = Math.max(1, Math.ceil(limited.retryAfterMs / 1000));
      return refused(
        {
          status: 429,
          headers: { 'retry-after': String(retryAfterSeconds) },
          body: { error: 'Too many requests to this webhook', code: 'RATE_LIMITED' },
        },
        'RATE_LIMITED',
      );
    }
    // The address first: a wrong address is 404 whatever its body (issue 30).
    const address = await resolveAddress(webhookId);
    const body = parseJsonBody(request.body);
    return deliver(address, request, body, idempotencyValueOf(request.headers), undefined);
  }

  /**
   * A verified provider delivery for one of the addresses its connected workspace's workflows
   * have (decision 132): handled as a request to that address whose idempotency value is the
   * provider's delivery id, so a redelivery starts no second run.
   */
  async function deliverProviderEvent(
    webhookId: string,
    request: RawServiceRequest,
    body: unknown,
    source: DeliverySource,
  ): Promise<Delivery> {
    const address = await resolveAddress(webhookId);
    // One delivery may reach several addresses: each event gets a copy of its own of a large
    // body, as the body parked by the gateway is deleted when the first event is stored.
    const { [PROVIDER_SIGNATURE_HEADERS[source.provider]]: _signature, ...headers } =
      request.headers;
    const unparked = { ...request, headers, parkedBody: undefined };
    return deliver(address, unparked, body, `${source.provider}:${source.deliveryId}`, source);
  }

  /**
   * What a request to a resolved address does: a test event always; a run when the workflow is
   * live, the request is no repeat, the credits cover it and the running hours allow it.
   */
  async function deliver(
    address: WebhookAddress,
    request: RawServiceRequest,
    body: unknown,
    idempotencyValue: string | undefined,
    source: DeliverySource | undefined,
  ): Promise<Delivery> {
    const freshIds = { eventId: platform.ids.uuid(), runId: platform.ids.uuid() };

    // A request that starts no run is still kept, as a test event under an id of its own.
    const storeAsTestEventOnly = () =>
      withStored(async () =>
        storeEvent(
          address,
          freshIds.eventId,
          request,
          await payloadOf(freshIds.eventId, request, body),
          source,
        ),
      );

    if (address.status === 'draft') {
      await storeAsTestEventOnly();
      return success(
        address,
        body,
        {
          success: true,
          message: INACTIVE_MESSAGE,
          workflowId: address.workflowId,
          triggered: 0,
        },
        { outcome: 'accepted', reason: 'inactive' },
      );
    }

    const outcome = await withStored(async () => {
      try {
        return idempotencyValue === undefined
          ? await deps.claims.claimFingerprint(fingerprintKey(address.webhookId, body), freshIds)
          : await deps.claims.claimIdempotency(
              idempotencyKey(address.webhookId, idempotencyValue),
              freshIds,
            );
      } catch (error) {
        if (error instanceof ClaimPendingError) throw unavailable();
        throw error;
      }
    });

    if (outcome.kind === 'duplicate') {
      // The repeat is a valid request too.
      await storeAsTestEventOnly();
      return success(
        address,
        body,
        {
          success: true,
          workflowId: address.workflowId,
          eventId: outcome.eventId,
          triggered: 0,
          skipped: 1,
        },
        { outcome: 'skipped', reason: 'duplicate' },
      );
    }

    const claim = outcome;
    // Once the run request is stored, the run will happen and end: the claim must then be kept
    // (the runner releases a fingerprint; an idempotency value stays taken), whatever fails next.
    let runStored = false;
    try {
      const payload = await withStored(() => payloadOf(claim.eventId, request, body));
      const storeThisEvent = () =>
        withStored(() => storeEvent(address, claim.eventId, request, payload, source));

      const refusal = await creditRefusal(address);
      if (refusal) {
        await storeThisEvent();
        await claim.release();
        return refused(refusal, 'INSUFFICIENT_CREDITS');
      }

      const window = checkRunningHours(address.runningHours, platform.clock.now());
      if (!window.open && !address.queueOutsideWindow) {
        await storeThisEvent();
        // Dropped on purpose: a repeat of the same event is dropped too, an identical body may come again.
        if (claim.inflightKey) await claim.release();
        else await claim.confirm();
        return success(
          address,
          body,
          {
            success: true,
            workflowId: address.workflowId,
            eventId: claim.eventId,
            triggered: 0,
            skipped: 0,
            outsideRunningHours: 'dropped',
            message: 'Outside the running hours and queueing is off: no run was started.',
          },
          { outcome: 'skipped', reason: 'outside_running_hours' },
        );
      }

      const notBefore = window.open ? null : window.nextOpenAt;
      await withStored(() =>
        storeEvent(address, claim.eventId, request, payload, source, {
          runId: claim.runId,
          inflightKey: claim.inflightKey,
          notBefore: notBefore?.toISOString() ?? null,
        }),
      );
      runStored = true;
      await withStored(() => claim.confirm());
      return success(
        address,
        body,
        {
          success: true,
          workflowId: address.workflowId,
          eventId: claim.eventId,
          triggered: 1,
          skipped: 0,
          ...(notBefore
            ? {
                outsideRunningHours: 'queued' as const,
                notBefore: notBefore.toISOString(),
                message: 'Outside the running hours: the run waits for the next window.',
              }
            : {}),
        },
        { outcome: 'accepted', reason: 'ok' },
      );
    } catch (error) {
      if (!runStored) {
        await claim.release().catch((releaseError: unknown) => {
          deps.logger.warn({ err: releaseError }, 'releasing a webhook claim failed');
        });
      }
      throw error;
    }
  }

  async function describe(request: RawServiceRequest): Promise<ServiceReply> {
    const redirect = httpsRedirect(request);
    if (redirect) return redirect;
    const address = await resolveAddress(request.params['webhookId'] ?? '');
    const url = `${publicOrigin(request)}/webhooks/${address.webhookId}`;
    const state =
      address.status === 'live'
        ? 'The workflow is live: each accepted request starts one run.'
        : 'The workflow is in draft: requests are saved as test events and start no run.';
    return {
      status: 200,
      bodyKind: 'text',
      body: [
        'Custom Webhook trigger.',
        `Send POST ${url} with a JSON body and the header Content-Type: application/json.`,
        state,
        'Every key of the body becomes a variable {{Custom Webhook.<key>}}.',
        'To send an event only once, add an Idempotency-Key header with a value unique per event.',
        '',
      ].join('\n'),
    };
  }

  return { trigger, deliverProviderEvent, describe };
}
