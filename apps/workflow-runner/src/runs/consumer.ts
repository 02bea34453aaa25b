import type { Logger } from 'pino';
import { Envelope, RUNS_STREAM, START_RUN_SUBJECT, StartRun } from '@wap/contracts';
import {
  decodeJson,
  withTraceFromHeaders,
  type ObjectStore,
  type StreamConsumer,
  type Streams,
} from '@wap/platform';
import { readWebhookPayload } from '../test-events/payloads';
import type { WorkflowRepository } from '../workflows/repository';
import type { RunRepository } from './repository';

export const StartRunMessage = Envelope(StartRun);

/**
 * Turns a StartRun into a run row (idempotent by runId). Returns false when the workflow is
 * unknown. A workflow deleted since the request was accepted still gets its run, which then
 * executes the steps it had.
 */
export async function createRunFromRequest(
  deps: {
    runs: RunRepository;
    workflows: WorkflowRepository;
    objects: ObjectStore;
    logger: Logger;
  },
  start: StartRun,
): Promise<boolean> {
  const workflow = await deps.workflows.findAny(start.workflowId);
  if (!workflow || workflow.workspaceId !== start.workspaceId) return false;
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
  await deps.runs.create({
    runId: start.runId,
    workflow,
    trigger:
      start.trigger.type === 'custom_webhook'
        ? { type: 'custom_webhook', eventId: start.trigger.eventId }
        : { type: 'mcp', keyId: start.trigger.keyId },
    input,
    inflightKey: start.inflightKey,
    notBefore: start.notBefore ? new Date(start.notBefore) : null,
  });
  return true;
}

/**
 * Durable consumer of RUNS: the message is acknowledged once its run is a row of the scheduler
 * table, which from then on keeps it (a queued run waits there for its notBefore).
 */
export async function consumeRunRequests(deps: {
  streams: Streams;
  objects: ObjectStore;
  runs: RunRepository;
  workflows: WorkflowRepository;
  logger: Logger;
  onRunCreated: () => void;
}): Promise<StreamConsumer> {
  await deps.streams.ensureStream({ name: RUNS_STREAM, subjects: [START_RUN_SUBJECT] });
  return deps.streams.consume(
    { stream: RUNS_STREAM, durable: 'workflow-runner-runs', filterSubject: START_RUN_SUBJECT },
    (message) =>
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
        if (!(await createRunFromRequest(deps, start))) {
          deps.logger.warn({ runId: start.runId }, 'run request for an unknown workflow dropped');
          message.ack();
          return;
        }
        message.ack();
        deps.onRunCreated();
      }),
  );
}
