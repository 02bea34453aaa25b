import type { Logger } from 'pino';
import {
  AppError,
  DEAD_LETTER_HEADERS,
  DEAD_LETTERS_STREAM_CONFIG,
  deadLetterSubject,
  type DeadLetterReason,
} from '@wap/contracts';
import { metrics } from '@wap/observability';
import {
  BusTimeoutError,
  NoRespondersError,
  isDatabaseUnavailable,
  type ConsumerConfig,
  type StreamMessage,
  type Streams,
} from '@wap/platform';

/** Deliveries of a message that keeps failing for a reason a retry cannot change. */
export const MAX_FAILED_ATTEMPTS = 5;

/** How a consumer gives up on a message instead of retrying it for good (decision 125). */
export interface GiveUp {
  /** The payload does not parse: moved to DEAD_LETTERS at once. */
  unparsable(message: StreamMessage): void;
  /** No publisher of the stream signed it (a forgery, or an older release's): moved at once. */
  unsigned(message: StreamMessage): void;
  /**
   * Handling failed: delivered again after `delayMs`, unless the failure is not one a retry can
   * mend (the database and the bus being away are) and it has failed MAX_FAILED_ATTEMPTS times.
   */
  retryOrGiveUp(message: StreamMessage, error: unknown, delayMs: number): void;
}

/** The platform or a peer being away: a later delivery may well succeed. */
function isTransient(error: unknown): boolean {
  return (
    isDatabaseUnavailable(error) ||
    error instanceof NoRespondersError ||
    error instanceof BusTimeoutError ||
    (error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE')
  );
}

function shortMessageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  // Header values are one line of printable ASCII.
  return text.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300);
}

/**
 * Ensures DEAD_LETTERS and returns the give-up rules of one durable consumer. A message moved
 * there is acknowledged where it was only once the dead letter is stored; if storing it fails,
 * it is delivered again and moved then.
 */
export async function deadLettersFor(
  deps: { streams: Streams; logger: Logger },
  consumer: ConsumerConfig,
): Promise<GiveUp> {
  await deps.streams.ensureStream(DEAD_LETTERS_STREAM_CONFIG);
  const counted = (reason: DeadLetterReason) =>
    metrics.deadLetters.labels(consumer.stream, consumer.durable, reason);

  function move(message: StreamMessage, reason: DeadLetterReason, error?: unknown): void {
    // The original's own headers, but not JetStream's (its dedupe id would clash with ours).
    const own = Object.entries(message.headers).filter(([name]) => !name.startsWith('Nats-'));
    const headers: Record<string, string> = {
      ...Object.fromEntries(own),
      [DEAD_LETTER_HEADERS.stream]: consumer.stream,
      [DEAD_LETTER_HEADERS.subject]: message.subject,
      [DEAD_LETTER_HEADERS.seq]: String(message.seq),
      [DEAD_LETTER_HEADERS.reason]: reason,
      [DEAD_LETTER_HEADERS.attempts]: String(message.deliveryCount),
    };
    if (error !== undefined) headers[DEAD_LETTER_HEADERS.error] = shortMessageOf(error);
    deps.streams
      .publish(deadLetterSubject(consumer.durable), message.data, {
        headers,
        // A repeat of the move (the ack lost) is stored once.
        messageId: `${consumer.stream}.${consumer.durable}.${message.seq}`,
      })
      .then(
        () => {
          message.ack();
          counted(reason).inc();
          deps.logger.warn(
            {
              stream: consumer.stream,
              consumer: consumer.durable,
              seq: message.seq,
              reason,
              attempts: message.deliveryCount,
            },
            'moved a message to the dead letters',
          );
        },
        (publishError: unknown) => {
          deps.logger.error(
            { err: publishError, stream: consumer.stream, seq: message.seq },
            'a dead letter could not be stored; the message will be delivered again',
          );
          message.nak(1_000);
        },
      );
  }

  return {
    unparsable: (message) => move(message, 'unparsable'),
    unsigned: (message) => move(message, 'unsigned'),
    retryOrGiveUp(message, error, delayMs) {
      if (!isTransient(error) && message.deliveryCount >= MAX_FAILED_ATTEMPTS) {
        move(message, 'failed', error);
        return;
      }
      message.nak(delayMs);
    },
  };
}
