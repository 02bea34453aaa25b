import { BUS_APIS, type OperatorRetryRunReply } from '@wap/contracts';
import { callApi } from '@wap/bus-protocol';
import type { AdminContext } from '../operator';

/** `runs retry`: workflow-runner retries the run as its route would, for the operator. */
export function retryRun(
  context: AdminContext,
  retry: { runId: string; from: 'failed_step' | 'start' },
): Promise<OperatorRetryRunReply> {
  return callApi(context.platform.bus, BUS_APIS.operatorRetryRun, retry, {
    timeoutMs: context.timeoutMs,
  });
}

export function retryText(reply: OperatorRetryRunReply): string {
  return `run ${reply.runId} retried as run ${reply.retryId} (attempt ${reply.attempt}) of workflow ${reply.workflowId} in workspace ${reply.workspaceId}`;
}
