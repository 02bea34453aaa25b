import type { Logger } from 'pino';
import { Envelope, RUNS_STREAM, START_RUN_SUBJECT, StartRun } from '@wap/contracts';
import {
  decodeJson,
  withTraceFromHeaders,
  type ObjectStore,
  type StreamConsumer,
  type StreamMessage,
  type Streams,
} from '@wap/platform';
import { readWebhookPayload } from '../test-events/payloads';
import type { WorkflowRepository, WorkflowRow } from '../workflows/repository';
import type { NewRun, RunRepository } from './repository';

export const StartRunMessage = Envelope(StartRun);

/** Runs created in one transaction at most; the handlers in flight wait for the same commit. */
const MAX_BATCH = 64;
/** How long a run request waits for others to share its commit, in milliseconds. */
const BATCH_DELAY_MS = 2;

interface RunDeps {
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'findAny'>;
  objects: ObjectStore;
  logger: Logger;
}

/**
 * The run a StartRun asks for, or null when the workflow is unknown. A workflow deleted since
 * the request was accepted still gets its run, which then executes the steps it had.
 */
async function runFor(deps: RunDeps, start: StartRun): Promise<NewRun | null> {
  const workflow = await deps.workflows.findAny(start.workflowId);
  if (!workflow || workflow.workspaceId !== start.workspaceId) return null;
  let input: unknown;
  switch (start.trigger.type) {
    case 'custom_webhook': {
      const payload = await readWebhookPayload(deps.objects, start.trigger.payload);
      if (payload.missing)
        deps.logger.warn({ runId: start.runId }, 'run payload is no longer stored');
      input = payload.body;
      break;
    }
    case 'mcp':
      input = start.trigger.input;
      break;
  }
  return {
    runId: start.runId,
    workflow,
    trigger:
      start.trigger.type === 'custom_webhook'
        ? { type: 'custom_webhook', eventId: start.trigger.eventId }
        : { type: 'mcp', keyId: start.trigger.keyId },
    input,
    inflightKey: start.inflightKey,
    notBefore: start.notBefore ? new Date(start.notBefore) : null,
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
 * Collects the runs of concurrent handlers into one transaction: a commit (an fsync) per run
 * would cap run creation at a few hundred per second.
 */
function createRunBatcher(runs: RunRepository) {
  let pending: { run: NewRun; done: (error?: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | null = null;

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    runs.createMany(batch.map((entry) => entry.run)).then(
      () => batch.forEach((entry) => entry.done()),
      (error: unknown) => batch.forEach((entry) => entry.done(error ?? new Error('batch failed'))),
    );
  }

  return (run: NewRun): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      pending.push({ run, done: (error) => (error === undefined ? resolve() : reject(error)) });
      if (pending.length >= MAX_BATCH) flush();
      else timer ??= setTimeout(flush, BATCH_DELAY_MS);
    });
}

/**
 * Durable consumer of RUNS: a message is acknowledged once its run is a row of the scheduler
 * table, which from then on keeps it (a queued run waits there for its notBefore). `members`
 * consumers share the durable, so that enough requests are in flight to fill a batch.
 */
export async function consumeRunRequests(
  deps: RunDeps & { streams: Streams; members: number; onRunCreated: () => void },
): Promise<StreamConsumer> {
  await deps.streams.ensureStream({ name: RUNS_STREAM, subjects: [START_RUN_SUBJECT] });
  const createInBatch = createRunBatcher(deps.runs);
  // Requests in flight for one workflow share the read in progress: one query, not one each.
  const reading = new Map<string, Promise<WorkflowRow | undefined>>();
  const findWorkflow = (workflowId: string): Promise<WorkflowRow | undefined> => {
    let read = reading.get(workflowId);
    if (!read) {
      read = deps.workflows.findAny(workflowId).finally(() => reading.delete(workflowId));
      reading.set(workflowId, read);
    }
    return read;
  };
  const runDeps: RunDeps = {
    ...deps,
    workflows: { findAny: findWorkflow },
  };
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
      const run = await runFor(runDeps, start);
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
