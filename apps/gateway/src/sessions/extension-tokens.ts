import { AppError, type Actor, BUS_APIS } from '@wap/contracts';
import { BusTimeoutError, NoRespondersError, type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';

/**
 * The person a browser extension's bearer token stands for, asked of storage on every request:
 * storage alone holds the signing key and the token's record, so a revoked token is refused
 * from the next request on (decision 128). The person never carries platform rights this way.
 */
export function createExtensionTokenAuthenticator(deps: { bus: Bus; timeoutMs: number }) {
  return async function authenticateExtensionToken(token: string): Promise<Actor> {
    const verdict = await callApi(
      deps.bus,
      BUS_APIS.verifyExtensionToken,
      { token },
      { timeoutMs: deps.timeoutMs },
    ).catch((error: unknown) => {
      if (error instanceof NoRespondersError || error instanceof BusTimeoutError) {
        throw new AppError('SERVICE_UNAVAILABLE', 'The directory service is unavailable');
      }
      throw error;
    });
    if (!verdict.valid) {
      throw verdict.reason === 'expired'
        ? new AppError('SESSION_EXPIRED', 'Extension token has expired')
        : new AppError('UNAUTHORIZED', 'Invalid extension token');
    }
    return {
      userId: verdict.user.id,
      subject: verdict.user.subject,
      email: verdict.user.email,
      name: verdict.user.name,
      platformAdmin: false,
    };
  };
}
