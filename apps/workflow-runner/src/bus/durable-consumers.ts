import type { Logger } from 'pino';
import type { z } from 'zod';
import { Envelope } from '@wap/contracts';
import {
  decodeJson,
  type ConsumerConfig,
  type StreamConsumer,
  type StreamMessage,
  type Streams,
} from '@wap/platform';
import type { GiveUp } from './dead-letters';

/**
 * `members` consumers of one durable, so that enough messages are in flight at once to fill a
 * group commit. They open one after the other: the embedded adapter's first open of a durable
 * is not safe to race.
 */
export async function consumeWithMembers(
  streams: Streams,
  config: ConsumerConfig,
  members: number,
  handle: (message: StreamMessage) => Promise<void>,
): Promise<StreamConsumer> {
  const consumers: StreamConsumer[] = [];
  for (let member = 0; member < members; member += 1) {
    consumers.push(await streams.consume(config, handle));
  }
  return {
    stop: async () => {
      await Promise.all(consumers.map((consumer) => consumer.stop()));
    },
  };
}

/**
 * Reads the data of a message's envelope. A message that no publisher of its stream signed
 * (decision 150), or that does not parse, is moved to the dead letters (redelivering it would
 * fail the same way) and reads as undefined. The envelope schema is built once here: a zod
 * schema compiles its parser on first use.
 */
export function envelopeReader<Data extends z.ZodType>(
  data: Data,
  logger: Logger,
  giveUp: Pick<GiveUp, 'unparsable' | 'unsigned'>,
  publishers: readonly string[],
) {
  const envelope = Envelope(data);
  return (message: StreamMessage): z.infer<Data> | undefined => {
    if (message.publisher === undefined || !publishers.includes(message.publisher)) {
      logger.warn(
        { seq: message.seq, subject: message.subject, publisher: message.publisher ?? null },
        'a message no publisher of its stream signed',
      );
      giveUp.unsigned(message);
      return undefined;
    }
    let parsed;
    try {
      parsed = envelope.safeParse(decodeJson(message.data));
    } catch {
      parsed = undefined;
    }
    if (parsed?.success) return (parsed.data as { data: z.infer<Data> }).data;
    logger.warn({ seq: message.seq, subject: message.subject }, 'a message that does not parse');
    giveUp.unparsable(message);
    return undefined;
  };
}
