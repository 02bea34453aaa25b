import { createHash } from 'node:crypto';
import type { Provider } from '@wap/contracts';

/** What a verified delivery is: which one (for repeats), which event, which account sent it. */
export interface DeliveryIdentity {
  /** The provider's delivery id; the body's SHA-256 when the provider sends none. */
  deliveryId: string;
  /** `pull_request.opened`, `Issue.create`, `app_mention`, `invoice.paid`. */
  event: string;
  /** Every id in it that may name a connected account, most specific first. */
  accountIds: string[];
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function present(...values: (string | undefined)[]): string[] {
  return [...new Set(values.filter((value): value is string => value !== undefined))];
}

function joined(...parts: (string | undefined)[]): string | undefined {
  const kept = parts.filter((part): part is string => part !== undefined);
  return kept.length > 0 ? kept.join('.') : undefined;
}

const MAX_ID_CHARS = 200;

function bounded(values: string[]): string[] {
  return values.filter((value) => value.length <= MAX_ID_CHARS).slice(0, 10);
}

/**
 * Reads a verified delivery's identity the way each provider documents it: GitHub's
 * `X-GitHub-Delivery` and `X-GitHub-Event` with the body's `action` and installation or
 * repository; Linear's `Linear-Delivery` with `type`, `action` and `organizationId`; Slack's
 * `event_id`, `event.type` and `team_id`; Stripe's event `id`, `type` and Connect `account`.
 * Undefined when the delivery names no event (Slack's URL check, a body that is no event).
 */
export function deliveryIdentityOf(
  provider: Provider,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  rawBody: Uint8Array,
): DeliveryIdentity | undefined {
  const json = record(body);
  const fallbackId = createHash('sha256').update(rawBody).digest('hex');
  let deliveryId: string | undefined;
  let event: string | undefined;
  let accountIds: string[] = [];
  switch (provider) {
    case 'github': {
      const repository = record(json['repository']);
      deliveryId = text(headers['x-github-delivery']);
      event = joined(text(headers['x-github-event']), text(json['action']));
      accountIds = present(
        text(record(json['installation'])['id']),
        text(repository['full_name']),
        text(record(json['organization'])['login']),
        text(record(repository['owner'])['login']),
      );
      break;
    }
    case 'linear':
      deliveryId = text(headers['linear-delivery']) ?? text(json['webhookId']);
      event = joined(text(json['type']), text(json['action']));
      accountIds = present(text(json['organizationId']));
      break;
    case 'slack': {
      if (json['type'] !== 'event_callback') return undefined;
      deliveryId = text(json['event_id']);
      event = text(record(json['event'])['type']);
      accountIds = present(text(json['team_id']), text(json['enterprise_id']));
      break;
    }
    case 'stripe':
      deliveryId = text(json['id']);
      event = text(json['type']);
      accountIds = present(text(json['account']));
      break;
  }
  if (event === undefined || event.length > MAX_ID_CHARS) return undefined;
  const id =
    deliveryId !== undefined && deliveryId.length <= MAX_ID_CHARS ? deliveryId : fallbackId;
  return { deliveryId: id, event, accountIds: bounded(accountIds) };
}
