import type { Logger } from 'pino';
import {
  WEBHOOK_EVENTS_STREAM,
  WEBHOOK_PAYLOADS_BUCKET,
  WEBHOOK_PAYLOADS_BUCKET_OPTIONS,
  WEBHOOK_RECEIVED_SUBJECT,
  WebhookReceived,
  WEBHOOK_EVENTS_STREAM_CONFIG,
  publishersOfStream,
} from '@wap/contracts';
import {
  type ObjectStore,
  type SqlDatabase,
  type StreamConsumer,
  type StreamMessage,
  type Streams,
} from '@wap/platform';
import { activeTraceparent, withTraceFromHeaders } from '@wap/bus-protocol';
import { deadLettersFor } from '../bus/dead-letters';
import { consumeWithMembers, envelopeReader } from '../bus/durable-consumers';
import { createGroupCommit } from '../db/group-commit';
import type { RunExecutor } from '../runs/executor';
import type { RunRepository } from '../runs/repository';
import type { NewRun } from '../runs/run-rows';
import { readWebhookPayload } from '../test-events/payloads';
import { startTestEventPruner } from '../test-events/pruner';
import type { NewTestEvent, TestEventRepository } from '../test-events/repository';
import type { ProviderEventsRepository } from '../provider-events/repository';
import type { WorkflowRepository } from '../workflows/repository';

/** Events written in one transaction at most; the handlers in flight wait for the same commit. */
const MAX_BATCH = 128;
/** Pause before an event that could not be stored is delivered again, per attempt so far. */
const RETRY_DELAY_MS = 1_000;
const MAX_RETRY_DELAY_MS = 60_000;

interface ReceivedEvent {
  event: WebhookReceived;
  body: unknown;
  /** The trace of this event's delivery: a batch is written in the context of one of them. */
  traceparent: string | null;
}

/**
 * Durable consumer of WEBHOOK_EVENTS: every valid webhook request becomes a test event, and a
 * request that started a run becomes its run, once each (by eventId and runId). Messages in
 * flight are written together, one transaction per batch, and acknowledged after its commit.
 */
/* eslint-disable-next-line max-lines-per-function --
  the consumer's handler and its pruning loop share the consumer and the stop signal */
export async function consumeWebhookEvents(deps: {
  streams: Streams;
  objects: ObjectStore;
  db: SqlDatabase;
  testEvents: TestEventRepository;
  providerEvents: Pick<ProviderEventsRepository, 'linkEvents'>;
  runs: RunRepository;
  workflows: Pick<WorkflowRepository, 'findManyAny'>;
  logger: Logger;
  members: number;
  /** How often the workflows that received events are pruned to their cap, in ms. */
  pruneIntervalMs: number;
  executor: Pick<RunExecutor, 'reserve'>;
}): Promise<StreamConsumer> {
  await deps.streams.ensureStream(WEBHOOK_EVENTS_STREAM_CONFIG);
  await deps.objects.ensureBucket(WEBHOOK_PAYLOADS_BUCKET, WEBHOOK_PAYLOADS_BUCKET_OPTIONS);
  const consumerConfig = {
    stream: WEBHOOK_EVENTS_STREAM,
    durable: 'workflow-runner-test-events',
    filterSubject: WEBHOOK_RECEIVED_SUBJECT,
  };
  const giveUp = await deadLettersFor(deps, consumerConfig);

  // Pruning is housekeeping, kept out of the commits the acks wait for.
  const pruner = startTestEventPruner({
    testEvents: deps.testEvents,
    intervalMs: deps.pruneIntervalMs,
    logger: deps.logger,
  });

  async function write(received: ReceivedEvent[]): Promise<void> {
    const workflows = await deps.workflows.findManyAny([
      ...new Set(received.map(({ event }) => event.workflowId)),
    ]);
    const testEvents: NewTestEvent[] = [];
    const deliveryLinks: Parameters<ProviderEventsRepository['linkEvents']>[0] = [];
    const runs: NewRun[] = [];
    for (const { event, body, traceparent } of received) {
      const workflow = workflows.get(event.workflowId);
      // The runner owns which address is whose: an event naming another workflow's address, or
      // another workspace, starts nothing whoever signed it.
      if (
        !workflow ||
        workflow.workspaceId !== event.workspaceId ||
        workflow.webhookId !== event.webhookId
      ) {
        deps.logger.warn(
          { eventId: event.eventId },
          'webhook event for an unknown workflow dropped',
        );
        continue;
      }
      testEvents.push({
        id: event.eventId,
        workflowId: event.workflowId,
        workspaceId: event.workspaceId,
        webhookId: event.webhookId,
        receivedAt: new Date(event.receivedAt),
        body,
        headers: event.headers,
      });
      if (event.source) {
        deliveryLinks.push({
          eventId: event.eventId,
          workflowId: event.workflowId,
          ...event.source,
        });
      }
      // A workflow deleted since the request was accepted still gets its run, which then
      // executes the steps it had.
      if (event.run) {
        runs.push({
          runId: event.run.runId,
          workflow,
          trigger: {
            type: event.source ? 'provider_event' : 'custom_webhook',
            eventId: event.eventId,
          },
          input: body,
          inflightKey: event.run.inflightKey,
          notBefore: event.run.notBefore ? new Date(event.run.notBefore) : null,
          traceparent,
        });
      }
    }
    if (testEvents.length === 0) return;
    // The runs are created leased to this replica's executor, which starts them at once: no
    // claim query, no second read of what was just written.
    const reservation = deps.executor.reserve(runs.length);
    const created = await deps.db
      .transaction(async (tx) => {
        await deps.testEvents.insertMany(testEvents, tx);
        await deps.providerEvents.linkEvents(deliveryLinks, tx);
        return deps.runs.createMany(runs, tx, reservation.lease);
      })
      .catch((error: unknown) => {
        reservation.cancel();
        throw error;
      });
    reservation.start(created);
    pruner.mark(testEvents.map((event) => event.workflowId));
  }

  /**
   * Whether an event is on record: its test event, or (once that was pruned) the run it
   * started. Both are written in one transaction.
   */
  async function isStored(event: WebhookReceived): Promise<boolean> {
    if (await deps.testEvents.find(event.workflowId, event.eventId)) return true;
    return event.run !== undefined && (await deps.runs.findByEvent(event.eventId)) !== undefined;
  }

  /**
   * Delivered again later, after a pause that grows with each attempt: an event the database
   * refuses must not spin.
   */
  function retryLater(message: StreamMessage, eventId: string, error: unknown): void {
    deps.logger.error(
      { err: error, eventId, attempt: message.deliveryCount },
      'storing a webhook event failed',
    );
    giveUp.retryOrGiveUp(
      message,
      error,
      Math.min(MAX_RETRY_DELAY_MS, RETRY_DELAY_MS * message.deliveryCount),
    );
  }

  /**
   * Writes a batch; if it fails, writes its events one at a time, so that one event the
   * database refuses holds back only itself. Returns the events that could not be written.
   */
  async function writeIsolatingFailures(
    received: ReceivedEvent[],
  ): Promise<Map<ReceivedEvent, unknown>> {
    const failures = new Map<ReceivedEvent, unknown>();
    try {
      await write(received);
    } catch (error) {
      if (received.length === 1) {
        failures.set(received[0] as ReceivedEvent, error);
        return failures;
      }
      for (const one of received) {
        await write([one]).catch((failure: unknown) => failures.set(one, failure));
      }
    }
    return failures;
  }
  const writeInBatch = createGroupCommit(writeIsolatingFailures, { maxBatch: MAX_BATCH });

  const readEnvelope = envelopeReader(
    WebhookReceived,
    deps.logger,
    giveUp,
    publishersOfStream(WEBHOOK_EVENTS_STREAM),
  );
  const consumer = await consumeWithMembers(deps.streams, consumerConfig, deps.members, (message) =>
    withTraceFromHeaders(message.headers, 'workflow-runner webhook event', async () => {
      const event = readEnvelope(message);
      if (!event) return;
      const payload = await readWebhookPayload(deps.objects, event.payload);
      if (payload.missing) {
        // The parked body is deleted only once its event is stored, so a body gone is most
        // often a delivery repeated after that (an ack lost, the runner killed before it).
        const stored = await isStored(event).catch((error: unknown) => {
          retryLater(message, event.eventId, error);
          return null;
        });
        if (stored === null) return;
        if (stored) {
          deps.logger.debug(
            { eventId: event.eventId },
            'webhook event delivered again after it was stored',
          );
          message.ack();
          return;
        }
        deps.logger.warn({ eventId: event.eventId }, 'webhook event body is no longer stored');
      }
      const received: ReceivedEvent = {
        event,
        body: payload.body,
        traceparent: activeTraceparent(),
      };
      const failures = await writeInBatch(received);
      if (failures.has(received)) {
        retryLater(message, event.eventId, failures.get(received));
        return;
      }
      if (event.payload.kind === 'object') {
        // The body is stored with the event now (or the event was dropped): the copy parked
        // for the trip is deleted before the ack, so that a crash leaves none behind. A
        // redelivery finds it gone and stores nothing new: the event is already there.
        await deps.objects
          .delete(event.payload.bucket, event.payload.name)
          .catch((error: unknown) => {
            deps.logger.warn(
              { err: error, eventId: event.eventId },
              'deleting a stored webhook body from the object store failed',
            );
          });
      }
      message.ack();
    }),
  );
  return {
    stop: async () => {
      await consumer.stop();
      await pruner.stop();
    },
  };
}
