import type { AccessDeniedBody } from '@wap/contracts';
import { ApiError } from '../../../lib/api';

export type DeniedChat = AccessDeniedBody['resource'];

/**
 * The chat named by endpoint 1's 403 Access-denied body (`{error: 'access_denied', resource}`),
 * or undefined for any other failure. Checked by hand: this body has no registry `code`, and
 * the check is too small to bring zod into the page for it.
 */
export function readAccessDenied(error: unknown): DeniedChat | undefined {
  if (!(error instanceof ApiError) || error.status !== 403) return undefined;
  const body: unknown = error.body;
  if (typeof body !== 'object' || body === null) return undefined;
  const { error: kind, resource } = body as Record<string, unknown>;
  if (kind !== 'access_denied' || typeof resource !== 'object' || resource === null) {
    return undefined;
  }
  const { id, type, name, ownerName, alreadyRequested } = resource as Record<string, unknown>;
  if (typeof id !== 'string' || type !== 'chat' || typeof alreadyRequested !== 'boolean') {
    return undefined;
  }
  return {
    id,
    type,
    name: typeof name === 'string' ? name : null,
    ownerName: typeof ownerName === 'string' ? ownerName : null,
    alreadyRequested,
  };
}

/** True for the 404 "Chat not found" of an unknown, deleted or other workspace's chat. */
export function isChatNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}
