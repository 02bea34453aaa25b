import type { RawServiceRequest, ServiceReply } from '@wap/contracts';
import type { WebhookIngestConfig } from '../config';

const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

type OriginConfig = Pick<WebhookIngestConfig, 'httpsRedirect' | 'publicBaseUrl'>;

const configuredOrigin = (config: OriginConfig) => config.publicBaseUrl?.replace(/\/$/, '');

/**
 * A request that came over plain http is sent to the https address with 308, which keeps
 * the method and the body: PUBLIC_BASE_URL when it is an https origin, else the request's host.
 * Loopback hosts are exempt: there is no TLS on a developer machine.
 */
export function httpsRedirect(
  config: OriginConfig,
  request: RawServiceRequest,
): ServiceReply | undefined {
  if (!config.httpsRedirect || request.protocol === 'https') return undefined;
  if (LOOPBACK_HOSTS.test(request.host)) return undefined;
  const configured = configuredOrigin(config);
  const origin = configured?.startsWith('https:') ? configured : `https://${request.host}`;
  return {
    status: 308,
    headers: { location: `${origin}${request.path}` },
    body: { error: 'Use the https address of this webhook' },
  };
}

/** PUBLIC_BASE_URL, else the request's host over https (plain http only on loopback). */
export function publicOrigin(config: OriginConfig, request: RawServiceRequest): string {
  const configured = configuredOrigin(config);
  if (configured) return configured;
  const plainHttp = request.protocol !== 'https' && LOOPBACK_HOSTS.test(request.host);
  return `${plainHttp ? 'http' : 'https'}://${request.host}`;
}
