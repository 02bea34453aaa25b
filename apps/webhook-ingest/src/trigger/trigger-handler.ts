import {
  AppError,
  PROVIDER_SIGNATURE_HEADERS,
  type RawServiceRequest,
  type ServiceReply,
} from '@wap/contracts';
import type { Delivery } from '../http/deliveries';
import { deliver, refused } from './deliver';
import { resolveAddress } from './event-store';
import { parseJsonBody } from './json-body';
import { httpsRedirect, publicOrigin } from './public-origin';
import { idempotencyValueOf } from './request-identity';
import type { DeliverySource, TriggerDeps } from './trigger-deps';

export function createTriggerHandlers(deps: TriggerDeps) {
  const { config } = deps;

  async function trigger(request: RawServiceRequest): Promise<Delivery> {
    const redirect = httpsRedirect(config, request);
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
    const address = await resolveAddress(deps, webhookId);
    const body = parseJsonBody(request.body);
    const idempotencyValue = idempotencyValueOf(request.headers);
    return deliver(deps, { address, request, body, idempotencyValue, source: undefined });
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
    const address = await resolveAddress(deps, webhookId);
    // One delivery may reach several addresses: each event gets a copy of its own of a large
    // body, as the body parked by the gateway is deleted when the first event is stored.
    const { [PROVIDER_SIGNATURE_HEADERS[source.provider]]: _signature, ...headers } =
      request.headers;
    const unparked = { ...request, headers, parkedBody: undefined };
    const idempotencyValue = `${source.provider}:${source.deliveryId}`;
    return deliver(deps, { address, request: unparked, body, idempotencyValue, source });
  }

  async function describe(request: RawServiceRequest): Promise<ServiceReply> {
    const redirect = httpsRedirect(config, request);
    if (redirect) return redirect;
    const address = await resolveAddress(deps, request.params['webhookId'] ?? '');
    const url = `${publicOrigin(config, request)}/webhooks/${address.webhookId}`;
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
