import type { Logger } from 'pino';
import { activeTraceparent } from '@wap/bus-protocol';
import { uuidOfName } from '../db/name-uuid';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunRepository } from './repository';
import type { RunRow, RunStepRow } from './run-rows';

/** A step that failed with `onFailure: run_workflow`. */
export interface FailedStep {
  run: RunRow;
  step: Pick<RunStepRow, 'stepIndex' | 'name' | 'type'>;
  error: string;
  workflowId: string;
}

/**
 * The run of a step's failure: the same id however often the failure is handled (a runner that
 * died between starting it and ending the failed run handles it again on resume).
 */
export function failureRunIdOf(runId: string, stepIndex: number): string {
  return uuidOfName(`failure:${runId}:${stepIndex}`);
}

/**
 * Starts the failure workflow a failed step names: a run of it whose trigger body says what
 * failed (`{{Custom Webhook.error}}`, `{{Custom Webhook.run.id}}`, ...), acting as that
 * workflow's own `runs_as`. It must be a workflow of the same workspace; a failure run's own
 * failures start no further one, so two workflows naming each other cannot loop.
 */
export async function startFailureWorkflow(
  deps: {
    workflows: Pick<WorkflowRepository, 'find'>;
    runs: Pick<RunRepository, 'create'>;
    logger: Logger;
    onRunCreated: () => void;
  },
  failed: FailedStep,
): Promise<void> {
  const { run, step } = failed;
  const context = { runId: run.id, stepIndex: step.stepIndex, workflowId: failed.workflowId };
  if (run.failedRunId !== null) {
    deps.logger.warn(context, 'a failure run failed: it starts no further failure workflow');
    return;
  }
  const workflow = await deps.workflows.find(failed.workflowId);
  if (!workflow || workflow.workspaceId !== run.workspaceId) {
    deps.logger.warn(context, 'the failure workflow of a failed step no longer exists');
    return;
  }
  const created = await deps.runs.create({
    runId: failureRunIdOf(run.id, step.stepIndex),
    workflow,
    trigger: { type: 'custom_webhook', eventId: null, failedRunId: run.id },
    input: {
      error: failed.error,
      run: {
        id: run.id,
        workflow_id: run.workflowId,
        trigger: run.triggerType,
        input: run.input,
        step: { index: step.stepIndex, name: step.name, type: step.type },
      },
    },
    inflightKey: null,
    notBefore: null,
    traceparent: activeTraceparent(),
  });
  if (created) {
    deps.logger.info(
      { ...context, failureRunId: failureRunIdOf(run.id, step.stepIndex) },
      'failure workflow started',
    );
    deps.onRunCreated();
  }
}
