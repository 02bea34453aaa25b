import type { Logger } from 'pino';
import {
  Envelope,
  WEBHOOK_EVENTS_STREAM,
  WEBHOOK_RECEIVED_SUBJECT,
  WebhookReceived,
} from '@wap/contracts';
import {
  decodeJson,
  withTraceFromHeaders,
  type ObjectStore,
  type StreamConsumer,
  type Streams,
} from '@wap/platform';
import type { WorkflowRepository } from '../workflows/repository';
import { readWebhookPayload } from './payloads';
import type { TestEventRepository } from './repository';

const WebhookReceivedMessage = Envelope(WebhookReceived);

/** Durable consumer of WEBHOOK_EVENTS: every valid webhook request becomes a test event, once. */
export async function consumeWebhookEvents(deps: {
  streams: Streams;
  objects: ObjectStore;
  testEvents: TestEventRepository;
  workflows: WorkflowRepository;
  logger: Logger;
}): Promise<StreamConsumer> {
  await deps.streams.ensureStream({
    name: WEBHOOK_EVENTS_STREAM,
    subjects: [WEBHOOK_RECEIVED_SUBJECT],
  });
  return deps.streams.consume(
    {
      stream: WEBHOOK_EVENTS_STREAM,
      durable: 'workflow-runner-test-events',
      filterSubject: WEBHOOK_RECEIVED_SUBJECT,
    },
    (message) =>
      withTraceFromHeaders(message.headers, 'workflow-runner test event', async () => {
        let parsed;
        try {
          parsed = WebhookReceivedMessage.safeParse(decodeJson(message.data));
        } catch {
          parsed = null;
        }
        if (!parsed?.success) {
          deps.logger.warn(
            { seq: message.seq },
            'terminating a WEBHOOK_EVENTS message that does not parse',
          );
          message.term();
          return;
        }
        const event = parsed.data.data;
        const workflow = await deps.workflows.findAny(event.workflowId);
        if (!workflow) {
          deps.logger.warn(
            { eventId: event.eventId },
            'test event for an unknown workflow dropped',
          );
          message.ack();
          return;
        }
        const payload = await readWebhookPayload(deps.objects, event.payload);
        if (payload.missing) {
          deps.logger.warn({ eventId: event.eventId }, 'test event body is no longer stored');
        }
        await deps.testEvents.add({
          id: event.eventId,
          workflowId: event.workflowId,
          workspaceId: event.workspaceId,
          webhookId: event.webhookId,
          receivedAt: new Date(event.receivedAt),
          body: payload.body,
          headers: event.headers,
        });
        message.ack();
      }),
  );
}
