import type { Logger } from 'pino';
import { Envelope, RUNS_STREAM, START_RUN_SUBJECT, StartRun } from '@wap/contracts';
import {
  decodeJson,
  withTraceFromHeaders,
  type StreamConsumer,
  type StreamMessage,
  type Streams,
} from '@wap/platform';
import { createGroupCommit } from '../db/group-commit';
import type { WorkflowRepository } from '../workflows/repository';
import type { NewRun, RunRepository } from './repository';

const StartRunMessage = Envelope(StartRun);

/** Runs created in one statement at most; the handlers in flight wait for the same commit. */
const MAX_BATCH = 64;

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
 * table, which from then on keeps it. `members` consumers share the durable, so that enough
 * requests are in flight to fill a batch.
 */
export async function consumeRunRequests(
  deps: RunDeps & {
    streams: Streams;
    logger: Logger;
    members: number;
    onRunCreated: () => void;
  },
): Promise<StreamConsumer> {
  await deps.streams.ensureStream({ name: RUNS_STREAM, subjects: [START_RUN_SUBJECT] });
  const createInBatch = createGroupCommit(
    async (runs: NewRun[]) => {
      await deps.runs.createMany(runs);
    },
    { maxBatch: MAX_BATCH },
  );
  const handle = (message: StreamMessage): Promise<void> =>
    withTraceFromHeaders(message.headers, 'workflow-runner start run', async () => {
      let parsed;
      try {
        parsed = StartRunMessage.safeParse(decodeJson(message.data));
      } catch {
        parsed = null;
      }
      if (!parsed?.success) {
        deps.logger.warn({ seq: message.seq }, 'terminating a RUNS message that does not parse');
        message.term();
        return;
      }
      const start = parsed.data.data;
      const run = await runFor(deps, start);
      if (!run) {
        deps.logger.warn({ runId: start.runId }, 'run request for an unknown workflow dropped');
        message.ack();
        return;
      }
      await createInBatch(run);
      message.ack();
      deps.onRunCreated();
    });
  // One after the other: the embedded adapter's first open of a durable is not safe to race.
  const consumers: StreamConsumer[] = [];
  for (let member = 0; member < deps.members; member += 1) {
    consumers.push(
      await deps.streams.consume(
        { stream: RUNS_STREAM, durable: 'workflow-runner-runs', filterSubject: START_RUN_SUBJECT },
        handle,
      ),
    );
  }
  return {
    stop: async () => {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
    },
  };
}
