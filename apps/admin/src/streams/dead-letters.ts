import { z } from 'zod';
import { DEAD_LETTER_HEADERS, DEAD_LETTERS_STREAM, namespacedStreamName } from '@wap/contracts';
import type { AdminContext } from '../operator';
import { jetStreamApi } from './stream-state';

/** A message a consumer gave up on, as `dead-letters list` shows it (decision 125). */
export interface DeadLetter {
  /** Its sequence in DEAD_LETTERS: what `dead-letters replay` takes. */
  seq: number;
  time: string;
  /** The consumer that gave up on it, and why. */
  consumer: string;
  reason: string;
  attempts: number;
  error: string | null;
  /** Where it came from. */
  stream: string;
  subject: string;
  originalSeq: number;
  bytes: number;
}

/** Dead letters listed at most, newest first. */
export const DEAD_LETTERS_LISTED = 100;

const StreamInfo = z.object({
  state: z.object({ first_seq: z.number(), last_seq: z.number(), messages: z.number() }),
});
const StoredMessage = z.object({
  message: z.object({
    subject: z.string(),
    seq: z.number(),
    time: z.string(),
    hdrs: z.string().optional(),
    data: z.string().optional(),
  }),
});
const JetStreamOk = z.object({ success: z.boolean() });

/** JetStream's answer for a sequence that holds no message (deleted, or aged out). */
const NO_MESSAGE = /: no message found \(404\)$/;
const NO_STREAM = /: stream not found \(404\)$/;

function streamName(context: AdminContext): string {
  return namespacedStreamName(DEAD_LETTERS_STREAM, context.namespace);
}

/** A NATS header block (`NATS/1.0\r\nName: value\r\n...`), base64 as the JetStream API sends it. */
function headersOf(encoded: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!encoded) return headers;
  const lines = Buffer.from(encoded, 'base64').toString('utf8').split('\r\n').slice(1);
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

async function stored(context: AdminContext, seq: number) {
  try {
    const { message } = await jetStreamApi(
      context.server.bus,
      `$JS.API.STREAM.MSG.GET.${streamName(context)}`,
      { seq },
      StoredMessage,
      context.timeoutMs,
    );
    return {
      ...message,
      headers: headersOf(message.hdrs),
      bytes: Buffer.from(message.data ?? '', 'base64'),
    };
  } catch (error) {
    if (error instanceof Error && NO_MESSAGE.test(error.message)) return undefined;
    throw error;
  }
}

function consumerOf(subject: string): string {
  const at = subject.indexOf('deadletter.');
  return at === -1 ? subject : subject.slice(at + 'deadletter.'.length);
}

/** `dead-letters list`: the newest dead letters, with where they came from and why. */
export async function listDeadLetters(context: AdminContext): Promise<DeadLetter[]> {
  let state: z.infer<typeof StreamInfo>['state'];
  try {
    ({ state } = await jetStreamApi(
      context.server.bus,
      `$JS.API.STREAM.INFO.${streamName(context)}`,
      {},
      StreamInfo,
      context.timeoutMs,
    ));
  } catch (error) {
    // workflow-runner makes the stream at its first start: before that there is none to read.
    if (error instanceof Error && NO_STREAM.test(error.message)) return [];
    throw error;
  }
  const letters: DeadLetter[] = [];
  for (let seq = state.last_seq; seq >= state.first_seq && seq > 0; seq -= 1) {
    if (letters.length >= DEAD_LETTERS_LISTED) break;
    const message = await stored(context, seq);
    if (!message) continue;
    const { headers } = message;
    letters.push({
      seq: message.seq,
      time: message.time,
      consumer: consumerOf(message.subject),
      reason: headers[DEAD_LETTER_HEADERS.reason] ?? 'unknown',
      attempts: Number(headers[DEAD_LETTER_HEADERS.attempts] ?? 0),
      error: headers[DEAD_LETTER_HEADERS.error] ?? null,
      stream: headers[DEAD_LETTER_HEADERS.stream] ?? '',
      subject: headers[DEAD_LETTER_HEADERS.subject] ?? '',
      originalSeq: Number(headers[DEAD_LETTER_HEADERS.seq] ?? 0),
      bytes: message.bytes.length,
    });
  }
  return letters;
}

/**
 * `dead-letters replay <seq>`: publishes the message again to the subject it first came to, with
 * its own headers (not the dead letter's, nor its dedupe id, which would drop it), then removes
 * the dead letter. A message that fails again comes back as a new dead letter.
 */
export async function replayDeadLetter(
  context: AdminContext,
  seq: number,
): Promise<{ seq: number; subject: string; replayedSeq: number }> {
  const message = await stored(context, seq);
  const subject = message?.headers[DEAD_LETTER_HEADERS.subject];
  if (!message || !subject) throw new Error(`no dead letter ${seq}`);
  const dropped = new Set<string>([...Object.values(DEAD_LETTER_HEADERS), 'Nats-Msg-Id']);
  const headers = Object.fromEntries(
    Object.entries(message.headers).filter(([name]) => !dropped.has(name)),
  );
  const ack = await context.platform.streams.publish(subject, new Uint8Array(message.bytes), {
    headers,
  });
  await jetStreamApi(
    context.server.bus,
    `$JS.API.STREAM.MSG.DELETE.${streamName(context)}`,
    { seq },
    JetStreamOk,
    context.timeoutMs,
  );
  return { seq, subject, replayedSeq: ack.seq };
}
