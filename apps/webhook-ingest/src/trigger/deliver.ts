import {
  checkRunningHours,
  creditBalanceKey,
  creditShortfallMessage,
  insufficientCreditsReply,
  type CreditSnapshot,
  type RawServiceRequest,
  type ServiceReply,
  type WebhookAddress,
  type WebhookInactiveResponse,
  type WebhookTriggeredResponse,
} from '@wap/contracts';
import type { Delivery } from '../http/deliveries';
import { renderCustomResponse } from './custom-response';
import { ClaimPendingError, type ClaimOutcome, type HeldClaim } from './duplicate-claims';
import { payloadOf, storeEvent, unavailable, withStored, type StoredRequest } from './event-store';
import { fingerprintKey, idempotencyKey } from './request-identity';
import type { DeliverySource, TriggerDeps } from './trigger-deps';

const INACTIVE_MESSAGE = 'Webhook is inactive. Test payload saved.';

/** A request to a resolved address, with what tells a repeat of it. */
export interface AddressedRequest {
  address: WebhookAddress;
  request: RawServiceRequest;
  body: unknown;
  idempotencyValue: string | undefined;
  source: DeliverySource | undefined;
}

type FreshIds = { eventId: string; runId: string };

export const refused = (reply: ServiceReply, reason: string): Delivery => ({
  reply,
  outcome: 'refused',
  reason,
});

/** The Custom Response replaces a 200 body when it is on and every value can be filled. */
function success(
  { address, body }: AddressedRequest,
  standard: WebhookTriggeredResponse | WebhookInactiveResponse,
  outcome: Pick<Delivery, 'outcome' | 'reason'>,
): Delivery {
  if (address.customResponse?.enabled) {
    const custom = renderCustomResponse(address.customResponse.body, body);
    if (custom) return { reply: custom, ...outcome };
  }
  return { reply: { status: 200, body: standard }, ...outcome };
}

/**
 * What a request to a resolved address does: a test event always; a run when the workflow is
 * live, the request is no repeat, the credits cover it and the running hours allow it.
 */
export async function deliver(deps: TriggerDeps, incoming: AddressedRequest): Promise<Delivery> {
  const freshIds = { eventId: deps.platform.ids.uuid(), runId: deps.platform.ids.uuid() };
  const { address } = incoming;
  if (address.status === 'draft') {
    await storeAsTestEventOnly(deps, incoming, freshIds.eventId);
    const inactive: WebhookInactiveResponse = {
      success: true,
      message: INACTIVE_MESSAGE,
      workflowId: address.workflowId,
      triggered: 0,
    };
    return success(incoming, inactive, { outcome: 'accepted', reason: 'inactive' });
  }
  const outcome = await claimEvent(deps, incoming, freshIds);
  if (outcome.kind === 'duplicate') {
    // The repeat is a valid request too.
    await storeAsTestEventOnly(deps, incoming, freshIds.eventId);
    const skipped: WebhookTriggeredResponse = {
      success: true,
      workflowId: address.workflowId,
      eventId: outcome.eventId,
      triggered: 0,
      skipped: 1,
    };
    return success(incoming, skipped, { outcome: 'skipped', reason: 'duplicate' });
  }
  return startClaimedRun(deps, incoming, outcome);
}

/** A request that starts no run is still kept, as a test event under an id of its own. */
async function storeAsTestEventOnly(
  { platform, logger }: TriggerDeps,
  incoming: AddressedRequest,
  eventId: string,
): Promise<void> {
  await withStored(logger, async () => {
    const payload = await payloadOf(platform, eventId, incoming.request, incoming.body);
    await storeEvent(platform, { ...incoming, eventId, payload });
  });
}

/** The idempotency value's claim when the request has one, else its body's fingerprint's. */
async function claimEvent(
  deps: TriggerDeps,
  { address, body, idempotencyValue }: AddressedRequest,
  freshIds: FreshIds,
): Promise<ClaimOutcome> {
  return withStored(deps.logger, async () => {
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
}

/** 402 body of the spec, or undefined when the balance covers one run. */
async function creditRefusal(
  deps: TriggerDeps,
  address: WebhookAddress,
): Promise<ServiceReply | undefined> {
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

/**
 * Once the run request is stored, the run will happen and end: the claim must then be kept
 * (the runner releases a fingerprint; an idempotency value stays taken), whatever fails next.
 * Before that, any failure gives the claim back.
 */
async function startClaimedRun(
  deps: TriggerDeps,
  incoming: AddressedRequest,
  claim: HeldClaim,
): Promise<Delivery> {
  const { platform, logger } = deps;
  let runStored = false;
  try {
    const payload = await withStored(logger, () =>
      payloadOf(platform, claim.eventId, incoming.request, incoming.body),
    );
    const stored: StoredRequest = { ...incoming, eventId: claim.eventId, payload };

    const refusal = await creditRefusal(deps, incoming.address);
    if (refusal) {
      await withStored(logger, () => storeEvent(platform, stored));
      await claim.release();
      return refused(refusal, 'INSUFFICIENT_CREDITS');
    }

    const window = checkRunningHours(incoming.address.runningHours, platform.clock.now());
    if (!window.open && !incoming.address.queueOutsideWindow) {
      return dropOutsideRunningHours(deps, incoming, stored, claim);
    }

    const notBefore = window.open ? null : window.nextOpenAt;
    await withStored(logger, () =>
      storeEvent(platform, stored, {
        runId: claim.runId,
        inflightKey: claim.inflightKey,
        notBefore: notBefore?.toISOString() ?? null,
      }),
    );
    runStored = true;
    await withStored(logger, () => claim.confirm());
    const triggered: WebhookTriggeredResponse = {
      success: true,
      workflowId: incoming.address.workflowId,
      eventId: claim.eventId,
      triggered: 1,
      skipped: 0,
      ...(notBefore
        ? {
            outsideRunningHours: 'queued',
            notBefore: notBefore.toISOString(),
            message: 'Outside the running hours: the run waits for the next window.',
          }
        : {}),
    };
    return success(incoming, triggered, { outcome: 'accepted', reason: 'ok' });
  } catch (error) {
    if (!runStored) {
      await claim.release().catch((releaseError: unknown) => {
        logger.warn({ err: releaseError }, 'releasing a webhook claim failed');
      });
    }
    throw error;
  }
}

async function dropOutsideRunningHours(
  { platform, logger }: TriggerDeps,
  incoming: AddressedRequest,
  stored: StoredRequest,
  claim: HeldClaim,
): Promise<Delivery> {
  await withStored(logger, () => storeEvent(platform, stored));
  // Dropped on purpose: a repeat of the same event is dropped too, an identical body may come again.
  if (claim.inflightKey) await claim.release();
  else await claim.confirm();
  const dropped: WebhookTriggeredResponse = {
    success: true,
    workflowId: incoming.address.workflowId,
    eventId: claim.eventId,
    triggered: 0,
    skipped: 0,
    outsideRunningHours: 'dropped',
    message: 'Outside the running hours and queueing is off: no run was started.',
  };
  return success(incoming, dropped, { outcome: 'skipped', reason: 'outside_running_hours' });
}
