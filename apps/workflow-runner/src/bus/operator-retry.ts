import type { Logger } from 'pino';
import { AppError, BUS_APIS, type OperatorRetryRunReply } from '@wap/contracts';
import type { Bus, IdSource, Subscription } from '@wap/platform';
import { activeTraceparent, serveApi } from '@wap/bus-protocol';
import type { CreditLedger } from '../credits/ledger';
import type { RunRepository } from '../runs/repository';
import { retryEndedRun, type RetryFrom } from '../runs/run-retry';
import type { WorkflowRepository } from '../workflows/repository';

interface OperatorRetryDeps {
  bus: Bus;
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'find'>;
  ledger: Pick<CreditLedger, 'balanceOf'>;
  ids: IdSource;
  logger: Logger;
  onRunCreated: () => void;
}

/**
 * An operator's retry of any workspace's run (the admin CLI's `runs retry`): the same retry as
 * the route's, acting as the run's own acting user, so an operator never widens what it may do.
 * Only the operators' key may send it (the bus registry).
 */
export async function retryRunForOperator(
  deps: Omit<OperatorRetryDeps, 'bus'>,
  request: { runId: string; from: RetryFrom },
): Promise<OperatorRetryRunReply> {
  const original = await deps.runs.get(request.runId);
  if (!original) throw new AppError('NOT_FOUND', 'Run not found');
  if (!(await deps.workflows.find(original.run.workflowId))) {
    throw new AppError('NOT_FOUND', 'Workflow not found');
  }
  const retried = await retryEndedRun(deps, original, {
    from: request.from,
    traceparent: activeTraceparent(),
  });
  if ('shortfall' in retried) throw new AppError('INSUFFICIENT_CREDITS', retried.shortfall);
  deps.logger.info(
    { runId: request.runId, retryId: retried.runId, from: request.from, by: 'operator' },
    'run retried by an operator',
  );
  return {
    runId: request.runId,
    retryId: retried.runId,
    workflowId: original.run.workflowId,
    workspaceId: original.run.workspaceId,
    attempt: original.run.attempt + 1,
  };
}

/** Serves the admin CLI's retry by one replica (queue group). */
export function serveOperatorRetry(deps: OperatorRetryDeps): Subscription {
  return serveApi(
    deps.bus,
    BUS_APIS.operatorRetryRun,
    (request) => retryRunForOperator(deps, request),
    {
      queue: 'workflow-runner',
      logger: deps.logger,
    },
  );
}
