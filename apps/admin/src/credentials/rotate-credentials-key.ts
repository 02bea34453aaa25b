import { type OperatorRewrapCredentialsReply, BUS_APIS } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import type { AdminContext } from '../operator';

/**
 * `credentials rotate`: mcp-registry holds the keys, so it re-wraps; the CLI never sees a key.
 * One replica answers (queue group); its newest key is the one reported.
 */
export function rotateCredentialsKey(
  context: AdminContext,
): Promise<OperatorRewrapCredentialsReply> {
  return callApi(
    context.platform.bus,
    BUS_APIS.operatorRewrapCredentials,
    {},
    { timeoutMs: context.timeoutMs },
  );
}
