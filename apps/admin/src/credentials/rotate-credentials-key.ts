import { type OperatorRewrapCredentialsReply, BUS_APIS } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import type { AdminContext } from '../operator';

/**
 * `credentials rotate`: mcp-registry and workflow-runner hold the keys, so they re-wrap what each
 * sealed; the CLI never sees a key. One replica of each answers (queue group); their newest key
 * is the one reported, and two different ones mean the services run with different key lists.
 */
export async function rotateCredentialsKey(
  context: AdminContext,
): Promise<OperatorRewrapCredentialsReply> {
  const options = { timeoutMs: context.timeoutMs };
  const [registry, runner] = await Promise.all([
    callApi(context.platform.bus, BUS_APIS.operatorRewrapCredentials, {}, options),
    callApi(context.platform.bus, BUS_APIS.operatorRewrapWorkflowSecrets, {}, options),
  ]);
  if (registry.keyId !== runner.keyId) {
    throw new Error(
      `mcp-registry's newest key is ${registry.keyId} but workflow-runner's is ${runner.keyId}: give both the same CREDENTIALS_ENCRYPTION_KEYS`,
    );
  }
  return { keyId: registry.keyId, rewrapped: registry.rewrapped + runner.rewrapped };
}
