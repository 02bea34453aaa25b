import type { Logger } from 'pino';
import type { z } from 'zod';
import {
  AppError,
  creditShortfallMessage,
  START_RUN_SUBJECT,
  type StartRun,
  BUS_APIS,
} from '@wap/contracts';
import {
  encodeJson,
  toJsonbStorable,
  type Bus,
  type Clock,
  type IdSource,
  type ObjectStore,
  type Streams,
  type Subscription,
} from '@wap/platform';
import { activeTraceparent, injectTraceHeaders, serveApi } from '@wap/bus-protocol';
import type { CreditLedger } from '../credits/ledger';
import { createRunFromRequest } from '../runs/consumer';
import type { RunRepository } from '../runs/repository';
import { toRun } from '../runs/run-api';
import { retryEndedRun } from '../runs/run-retry';
import type { ModelRequirement } from '../workflows/model-requirement';
import type { WorkflowAuthority } from '../workflows/permissions';
import { toWorkflow, type WorkflowRepository } from '../workflows/repository';

interface WorkflowApiDeps {
  bus: Bus;
  streams: Streams;
  objects: ObjectStore;
  workflows: WorkflowRepository;
  authority: WorkflowAuthority;
  runs: RunRepository;
  ledger: CreditLedger;
  clock: Clock;
  ids: IdSource;
  logger: Logger;
  requireModelFor: ModelRequirement;
  onRunCreated: () => void;
}

/**
 * A run started by a workspace API key: the workflow must be the key's workspace's, and the
 * workspace must let every member run workflows (a key is no one in particular).
 */
async function startRunForKey(
  deps: WorkflowApiDeps,
  request: z.infer<(typeof BUS_APIS.startRun)['request']>,
): Promise<{ runId: string }> {
  const workflow = await deps.workflows.find(request.workflowId);
  if (!workflow || workflow.workspaceId !== request.workspaceId) {
    throw new AppError('NOT_FOUND', 'Workflow not found');
  }
  await deps.authority.authorize(workflow, { kind: 'api_key' }, ['run']);
  await deps.requireModelFor(toWorkflow(workflow).steps);
  const shortfall = creditShortfallMessage(
    await deps.ledger.balanceOf(workflow.workspaceId),
    workflow.creditCost,
  );
  if (shortfall) throw new AppError('INSUFFICIENT_CREDITS', shortfall);
  const start: StartRun = {
    runId: deps.ids.uuid(),
    workflowId: workflow.id,
    workspaceId: workflow.workspaceId,
    trigger: { type: 'mcp', keyId: request.keyId, input: toJsonbStorable(request.input) },
  };
  await deps.streams.publish(
    START_RUN_SUBJECT,
    encodeJson({
      type: START_RUN_SUBJECT,
      id: start.runId,
      time: deps.clock.now().toISOString(),
      data: start,
    }),
    { messageId: start.runId, headers: injectTraceHeaders() },
  );
  // The consumer would create it too (idempotently); creating it here lets the caller read
  // the run at once.
  await createRunFromRequest(deps, start);
  deps.onRunCreated();
  return { runId: start.runId };
}

/** A retry asked for by a workspace API key: who may run the workflow by key may retry its runs. */
async function retryRunForKey(
  deps: WorkflowApiDeps,
  request: z.infer<(typeof BUS_APIS.retryRun)['request']>,
): Promise<{ runId: string }> {
  const original = await deps.runs.get(request.runId);
  if (!original || original.run.workspaceId !== request.workspaceId) {
    throw new AppError('NOT_FOUND', 'Run not found');
  }
  const workflow = await deps.workflows.find(original.run.workflowId);
  if (!workflow) throw new AppError('NOT_FOUND', 'Workflow not found');
  await deps.authority.authorize(workflow, { kind: 'api_key' }, ['run']);
  const retried = await retryEndedRun(deps, original, {
    from: request.from,
    traceparent: activeTraceparent(),
  });
  if ('shortfall' in retried) throw new AppError('INSUFFICIENT_CREDITS', retried.shortfall);
  deps.logger.info({ runId: request.runId, retryId: retried.runId }, 'run retried by key');
  return retried;
}

/**
 * The bus API of the platform's MCP server: a workspace API key lists its workspace's
 * workflows, starts runs (credits checked like a webhook run), reads and retries them.
 */
export function serveWorkflowApi(deps: WorkflowApiDeps): Subscription[] {
  const options = { queue: 'workflow-runner', logger: deps.logger };
  return [
    serveApi(
      deps.bus,
      BUS_APIS.listWorkflows,
      async (request) => {
        const rows = await deps.workflows.listByWorkspace(request.workspaceId);
        return {
          workflows: rows.map((row) => ({
            id: row.id,
            name: row.name,
            status: row.status === 'live' ? ('live' as const) : ('draft' as const),
            credit_cost: row.creditCost,
          })),
        };
      },
      options,
    ),

    serveApi(deps.bus, BUS_APIS.startRun, (request) => startRunForKey(deps, request), options),
    serveApi(deps.bus, BUS_APIS.retryRun, (request) => retryRunForKey(deps, request), options),

    serveApi(
      deps.bus,
      BUS_APIS.getRun,
      async (request) => {
        const found = await deps.runs.get(request.runId);
        if (!found || found.run.workspaceId !== request.workspaceId) {
          throw new AppError('NOT_FOUND', 'Run not found');
        }
        return { run: toRun(found.run, found.steps) };
      },
      options,
    ),
  ];
}
