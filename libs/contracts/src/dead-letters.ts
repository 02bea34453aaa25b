/**
 * Messages a stream consumer gave up on (decision 125): a payload that does not parse, or one
 * that failed for a reason a retry cannot change, after a bounded number of attempts. Each is
 * kept here with where it came from, for an operator to read and replay (`admin dead-letters`).
 */
export const DEAD_LETTERS_STREAM = 'DEAD_LETTERS';

/** A dead letter's subject names the consumer that gave up on it. */
export function deadLetterSubject(durable: string): string {
  return `deadletter.${durable}`;
}

/** Kept for 30 days: long enough to notice, read and replay. */
export const DEAD_LETTERS_STREAM_CONFIG = {
  name: DEAD_LETTERS_STREAM,
  subjects: ['deadletter.>'],
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
};

/** Headers a dead letter carries beside the original message's own. */
export const DEAD_LETTER_HEADERS = {
  /** The stream and subject the message was first published to, and its sequence there. */
  stream: 'Wap-Dead-Letter-Stream',
  subject: 'Wap-Dead-Letter-Subject',
  seq: 'Wap-Dead-Letter-Seq',
  /** `unparsable`, `unsigned` (no valid signature of a publisher of its stream), or `failed` for an error a retry could not change. */
  reason: 'Wap-Dead-Letter-Reason',
  /** Deliveries the consumer made before giving up. */
  attempts: 'Wap-Dead-Letter-Attempts',
  /** The last error, shortened (never a stack). */
  error: 'Wap-Dead-Letter-Error',
} as const;

export type DeadLetterReason = 'unparsable' | 'unsigned' | 'failed';
