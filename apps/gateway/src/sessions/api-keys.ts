import { AppError, type ApiKeyPrincipal, BUS_APIS } from '@wap/contracts';
import type { EdgeRequest } from '@wap/http';
import { BusTimeoutError, NoRespondersError, type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';

const BEARER_API_KEY = /^bearer\s+(sk_[A-Za-z0-9_-]{8,200})$/i;

/**
 * Authenticates `Authorization: Bearer sk_...` against the stored key hashes (storage), for the
 * routes that accept workspace API keys. Every failure is the same 401, so keys cannot be probed.
 */
export function createApiKeyAuthenticator(deps: { bus: Bus; timeoutMs: number }) {
  return async function authenticateApiKey(request: EdgeRequest): Promise<ApiKeyPrincipal> {
    const match = BEARER_API_KEY.exec(request.header('authorization')?.trim() ?? '');
    if (!match?.[1]) throw new AppError('UNAUTHORIZED', 'A workspace API key is required');
    const verdict = await callApi(
      deps.bus,
      BUS_APIS.verifyApiKey,
      { key: match[1] },
      { timeoutMs: deps.timeoutMs },
    ).catch((error: unknown) => {
      if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The directory service is unavailable');
      }
      throw error;
    });
    if (!verdict.valid || !verdict.workspaceId || !verdict.keyId) {
      throw new AppError('UNAUTHORIZED', 'Invalid API key');
    }
    return { workspaceId: verdict.workspaceId, keyId: verdict.keyId };
  };
}
