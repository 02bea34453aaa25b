import type { Logger } from 'pino';
import {
  publishersOfStream,
  RUNS_STREAM,
  START_RUN_SUBJECT,
  StartRun,
  RUNS_STREAM_CONFIG,
} from '@wap/contracts';
import { type StreamConsumer, type Streams } from '@wap/platform';
import { activeTraceparent, withTraceFromHeaders } from '@wap/bus-protocol';
import { deadLettersFor } from '../bus/dead-letters';
import { consumeWithMembers, envelopeReader } from '../bus/durable-consumers';
import { createGroupCommit } from '../db/group-commit';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunRepository } from './repository';
import type { NewRun } from './run-rows';

/** Runs created in one statement at most; the handlers in flight wait for the same commit. */
const MAX_BATCH = 64;
/** A run request whose run could not be created is delivered again after this. */
const RETRY_DELAY_MS = 1_000;

interface RunDeps {
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'findAny'>;
}

/**
 * The run a StartRun asks for, or null when the workflow is unknown. A workflow deleted since
 * the request was accepted still gets its run, which then executes the steps it had.
 */
async function runFor(deps: RunDeps, start: StartRun): Promise<NewRun | null> {
  const workflow = await deps.workflows.findAny(start.workflowId);
  if (!workflow || workflow.workspaceId !== start.workspaceId) return null;
  return {
    runId: start.runId,
    workflow,
    trigger: { type: 'mcp', keyId: start.trigger.keyId },
    input: start.trigger.input,
    inflightKey: null,
    notBefore: null,
    traceparent: activeTraceparent(),
  };
}

/** Turns a StartRun into a run row (idempotent by runId); false when the workflow is unknown. */
export async function createRunFromRequest(deps: RunDeps, start: StartRun): Promise<boolean> {
  const run = await runFor(deps, start);
  if (!run) return false;
  await deps.runs.create(run);
  return true;
}

/**
 * Durable consumer of RUNS: a message is acknowledged once its run is a row of the scheduler
 * table, which from then on keeps it.
 */
export async function consumeRunRequests(
  deps: RunDeps & {
    streams: Streams;
    logger: Logger;
    members: number;
    onRunCreated: () => void;
  },
): Promise<StreamConsumer> {
  await deps.streams.ensureStream(RUNS_STREAM_CONFIG);
  const createInBatch = createGroupCommit(
    async (runs: NewRun[]) => {
      await deps.runs.createMany(runs);
    },
    { maxBatch: MAX_BATCH },
  );
  const consumerConfig = {
    stream: RUNS_STREAM,
    durable: 'workflow-runner-runs',
    filterSubject: START_RUN_SUBJECT,
  };
  const giveUp = await deadLettersFor(deps, consumerConfig);
  const readEnvelope = envelopeReader(
    StartRun,
    deps.logger,
    giveUp,
    publishersOfStream(RUNS_STREAM),
  );
  return consumeWithMembers(deps.streams, consumerConfig, deps.members, (message) =>
    withTraceFromHeaders(message.headers, 'workflow-runner start run', async () => {
      const start = readEnvelope(message);
      if (!start) return;
      try {
        const run = await runFor(deps, start);
        if (!run) {
          deps.logger.warn({ runId: start.runId }, 'run request for an unknown workflow dropped');
          message.ack();
          return;
        }
        await createInBatch(run);
      } catch (error) {
        deps.logger.error(
          { err: error, runId: start.runId, attempt: message.deliveryCount },
          'creating a run failed',
        );
        giveUp.retryOrGiveUp(message, error, RETRY_DELAY_MS);
        return;
      }
      message.ack();
      deps.onRunCreated();
    }),
  );
}
