import { randomUUID } from 'node:crypto';
import { type Actor, type ServiceRequest, BUS_APIS } from '@wap/contracts';
import { type Platform } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';

/**
 * The platform as the admin CLI sees it: `platform` inside the deployment's namespace for the
 * services' subjects and buckets, `server` outside it for the JetStream API.
 */
export interface AdminContext {
  platform: Platform;
  server: Platform;
  namespace?: string;
  timeoutMs: number;
}

/**
 * The one identity operators act as: a user row of its own (created on first use by storage),
 * so that a grant's ledger entry names the admin CLI and never a person who did not make it.
 */
const OPERATOR = {
  subject: 'operator|admin-cli',
  email: 'admin-cli@operators.invalid',
  name: 'Admin CLI',
} as const;

/** The operator as a platform administrator, as the gateway would forward a signed-in admin. */
export async function operatorActor(context: AdminContext): Promise<Actor> {
  const { userId } = await callApi(context.platform.bus, BUS_APIS.ensureUser, OPERATOR, {
    timeoutMs: context.timeoutMs,
  });
  return { userId, ...OPERATOR, platformAdmin: true };
}

/** A route request carrying the operator, for a route the owning service already serves. */
export function operatorRequest(
  actor: Actor,
  parts: Pick<ServiceRequest, 'params' | 'body'>,
): ServiceRequest {
  return { requestId: `admin-${randomUUID()}`, actor, query: {}, headers: {}, ...parts };
}
