import { createHash } from 'node:crypto';
import { webhookRoutes } from '@wap/contracts';

const WEBHOOK_PREFIX = '/webhooks/';

/** The provider routes' own paths under /webhooks/: fixed names, not addresses. */
const PROVIDER_PATHS = new Set(
  webhookRoutes
    .map((route) => route.path.toLowerCase())
    .filter((path) => path.startsWith(WEBHOOK_PREFIX) && !path.includes(':')),
);

/**
 * A short, non-reversible name for a secret (a webhook address): the first 12 hex digits of
 * its SHA-256, enough to tell requests to one address from another in logs (decision 120).
 */
export function secretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

/**
 * A request path as logs, spans and error bodies may carry it: a Custom Webhook address is the
 * trigger's only secret, so whatever follows `/webhooks/` (matched or not, escaped well or
 * not) is replaced by its fingerprint, except the provider routes' fixed paths.
 */
export function loggablePath(path: string): string {
  if (path.length < WEBHOOK_PREFIX.length) return path;
  if (path.slice(0, WEBHOOK_PREFIX.length).toLowerCase() !== WEBHOOK_PREFIX) return path;
  const normalised = path.toLowerCase().replace(/\/$/, '');
  if (PROVIDER_PATHS.has(normalised)) return path;
  return `${WEBHOOK_PREFIX}~${secretFingerprint(path.slice(WEBHOOK_PREFIX.length))}`;
}
