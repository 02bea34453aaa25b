import {
  AckPolicy,
  JetStreamApiError,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { ConsumerConfig, StreamConsumer, StreamMessage, Streams } from '../platform';
import { fromMsgHdrs, toMsgHdrs } from './headers';
import { InFlight, type OpenResources } from './inflight';
import { retryingSetupTimeouts, untilStreamLeader } from './setup-retry';

/** JetStream's default duplicate window, 2 minutes. */
const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;
const DEFAULT_ACK_WAIT_MS = 30_000;
/** Handlers of one consumer that may run at once; also the pull batch size. */
const CONSUMER_CONCURRENCY = 16;
/** Pause before re-opening a consume loop that the client ended (e.g. after a long outage). */
const CONSUME_RESTART_DELAY_MS = 1_000;
/** JetStream API error: a stream or consumer exists already with another configuration. */
const STREAM_NAME_IN_USE = 10058;
/**
 * JetStream API error: the subjects are another stream's. Two processes making one stream at
 * the same moment (two replicas starting) can be told this too: the add is tried again a few
 * times, after which a real overlap is an error.
 */
const STREAM_SUBJECT_OVERLAP = 10065;
const OVERLAP_TRIES = 5;
const OVERLAP_RETRY_MS = 200;

function wrapJsMsg(msg: JsMsg): { message: StreamMessage; settled: () => boolean } {
  let settled = false;
  const message: StreamMessage = {
    subject: msg.subject,
    data: msg.data,
    headers: fromMsgHdrs(msg.headers),
    seq: msg.seq,
    deliveryCount: msg.info.deliveryCount,
    ack: () => {
      settled = true;
      msg.ack();
    },
    nak: (delayMs) => {
      settled = true;
      msg.nak(delayMs);
    },
    term: () => {
      settled = true;
      msg.term();
    },
    working: () => msg.working(),
  };
  return { message, settled: () => settled };
}

/* eslint-disable-next-line max-lines-per-function --
  an adapter: one short method per Streams operation over one JetStream client */
export function createJetStreamStreams(
  js: JetStreamClient,
  jsm: JetStreamManager,
  open: OpenResources,
  logger: Logger,
  replicas: number,
): Streams {
  return {
    async ensureStream(config) {
      const wanted = {
        subjects: config.subjects,
        num_replicas: replicas,
        duplicate_window: nanos(config.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
        max_age: nanos(config.maxAgeMs ?? 0),
      };
      await retryingSetupTimeouts(async () => {
        for (let attempt = 1; ; attempt += 1) {
          try {
            await jsm.streams.add({ name: config.name, ...wanted });
            return;
          } catch (error) {
            const code = error instanceof JetStreamApiError ? error.code : undefined;
            if (code === STREAM_NAME_IN_USE) {
              // It exists with another configuration: a newer deployment changes it in place.
              await jsm.streams.update(config.name, wanted);
              return;
            }
            if (code !== STREAM_SUBJECT_OVERLAP || attempt >= OVERLAP_TRIES) throw error;
            await sleep(OVERLAP_RETRY_MS);
          }
        }
      });
      await untilStreamLeader(jsm, config.name);
    },

    async publish(subject, data, options) {
      const ack = await js.publish(subject, data, {
        ...(options?.messageId ? { msgID: options.messageId } : {}),
        ...(options?.headers ? { headers: toMsgHdrs(options.headers) } : {}),
      });
      return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
    },

    async consume(config, handler) {
      await ensureConsumer(jsm, config);
      const consumer = await js.consumers.get(config.stream, config.durable);
      const inFlight = new InFlight();
      const log = logger.child({ stream: config.stream, consumer: config.durable });
      let stopping = false;
      let messages: ConsumerMessages | undefined;

      const handleOne = async (msg: JsMsg): Promise<void> => {
        const { message, settled } = wrapJsMsg(msg);
        try {
          await handler(message);
        } catch (error) {
          log.warn(
            { err: error, seq: msg.seq },
            'stream handler failed; message will be redelivered',
          );
          if (!settled()) msg.nak();
        }
      };

      const run = async (): Promise<void> => {
        while (!stopping) {
          try {
            messages = await consumer.consume({ max_messages: CONSUMER_CONCURRENCY });
            if (stopping) {
              await messages.close();
              break;
            }
            for await (const msg of messages) {
              await inFlight.below(CONSUMER_CONCURRENCY);
              // Messages pulled but not started when stop() came go back at once, not after ackWait.
              if (stopping) {
                msg.nak();
                continue;
              }
              inFlight.track(handleOne(msg));
            }
          } catch (error) {
            if (!stopping) log.error({ err: error }, 'consume loop failed; restarting');
          }
          if (!stopping)
            await new Promise((resolve) => setTimeout(resolve, CONSUME_RESTART_DELAY_MS));
        }
      };
      const loop = run();

      const stopConsumer: StreamConsumer = {
        stop: open.add(async () => {
          stopping = true;
          await messages?.close();
          await loop;
          await inFlight.settled();
        }),
      };
      return stopConsumer;
    },

    async pending(stream, durable) {
      return (await jsm.consumers.info(stream, durable)).num_pending;
    },
  };
}

async function ensureConsumer(jsm: JetStreamManager, config: ConsumerConfig): Promise<void> {
  const settings = {
    ack_wait: nanos(config.ackWaitMs ?? DEFAULT_ACK_WAIT_MS),
    max_deliver: config.maxDeliver ?? -1,
    ...(config.filterSubject ? { filter_subject: config.filterSubject } : {}),
  };
  try {
    await retryingSetupTimeouts(() =>
      jsm.consumers.add(config.stream, {
        durable_name: config.durable,
        ack_policy: AckPolicy.Explicit,
        ...settings,
      }),
    );
  } catch (error) {
    if (!(error instanceof JetStreamApiError)) throw error;
    // The durable exists with other settings (an older deployment): bring it up to date.
    await jsm.consumers.update(config.stream, config.durable, settings);
  }
}
