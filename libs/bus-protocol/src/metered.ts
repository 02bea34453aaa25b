import { subjectTemplate } from '@wap/contracts';
import { BusTimeoutError, NoRespondersError } from '@wap/platform';
import type { Bus, BusMessage, Platform, StreamMessage, Streams } from '@wap/platform';
import { replyOutcome } from './rpc';

/** How one bus request went, for either side. */
export type BusRequestOutcome = 'ok' | 'user_error' | 'error' | 'timeout' | 'no_responders';

/** How a durable consumer's handler settled one message. */
export type StreamMessageOutcome = 'acked' | 'retried' | 'dropped';

/**
 * Where a metered platform reports its bus and stream traffic: the composition root hands over
 * the process's metrics (`platformMetrics` of `@wap/observability`). Labels arrive already free
 * of namespaces and ids: subject templates, plain stream and consumer names.
 */
export interface PlatformMetrics {
  busRequest(
    labels: { subject: string; side: 'client' | 'server'; outcome: BusRequestOutcome },
    seconds: number,
  ): void;
  streamMessage(labels: { stream: string; consumer: string; outcome: StreamMessageOutcome }): void;
  streamRedelivery(labels: { stream: string; consumer: string }): void;
  /** Reads the consumer's lag at every scrape until the returned function is called. */
  watchConsumerLag(
    labels: { stream: string; consumer: string },
    read: () => Promise<number>,
  ): () => void;
}

function busOutcomeOfFailure(error: unknown): BusRequestOutcome {
  if (error instanceof BusTimeoutError) return 'timeout';
  if (error instanceof NoRespondersError) return 'no_responders';
  return 'error';
}

function meteredBus(bus: Bus, metrics: PlatformMetrics): Bus {
  const observe = (
    subject: string,
    side: 'client' | 'server',
    outcome: BusRequestOutcome,
    startedAt: bigint,
  ) =>
    metrics.busRequest(
      { subject: subjectTemplate(subject), side, outcome },
      Number(process.hrtime.bigint() - startedAt) / 1e9,
    );
  return {
    async request(subject, data, options) {
      const startedAt = process.hrtime.bigint();
      let reply: BusMessage;
      try {
        reply = await bus.request(subject, data, options);
      } catch (error) {
        observe(subject, 'client', busOutcomeOfFailure(error), startedAt);
        throw error;
      }
      observe(subject, 'client', replyOutcome(reply.headers), startedAt);
      return reply;
    },
    serve(subject, handler, options) {
      return bus.serve(
        subject,
        async (message) => {
          const startedAt = process.hrtime.bigint();
          try {
            const reply = await handler(message);
            observe(message.subject, 'server', replyOutcome(reply.headers), startedAt);
            return reply;
          } catch (error) {
            observe(message.subject, 'server', 'error', startedAt);
            throw error;
          }
        },
        options,
      );
    },
    publish: (subject, data, headers) => bus.publish(subject, data, headers),
    subscribe: (subject, handler, options) => bus.subscribe(subject, handler, options),
  };
}

function meteredStreams(streams: Streams, metrics: PlatformMetrics): Streams {
  return {
    ensureStream: (config) => streams.ensureStream(config),
    publish: (subject, data, options) => streams.publish(subject, data, options),
    pending: (stream, durable) => streams.pending(stream, durable),
    async consume(config, handler) {
      const labels = { stream: config.stream, consumer: config.durable };
      const consumer = await streams.consume(config, async (message) => {
        if (message.deliveryCount > 1) metrics.streamRedelivery(labels);
        let settled = false;
        const settle = (outcome: StreamMessageOutcome) => {
          if (settled) return;
          settled = true;
          metrics.streamMessage({ ...labels, outcome });
        };
        const counted: StreamMessage = {
          subject: message.subject,
          data: message.data,
          headers: message.headers,
          seq: message.seq,
          deliveryCount: message.deliveryCount,
          ack: () => {
            settle('acked');
            message.ack();
          },
          nak: (delayMs) => {
            settle('retried');
            message.nak(delayMs);
          },
          term: () => {
            settle('dropped');
            message.term();
          },
          working: () => message.working(),
        };
        try {
          await handler(counted);
        } catch (error) {
          // The runtime naks a message whose handler threw without settling it.
          settle('retried');
          throw error;
        }
      });
      const unwatch = metrics.watchConsumerLag(labels, () =>
        streams.pending(config.stream, config.durable),
      );
      return {
        async stop() {
          unwatch();
          await consumer.stop();
        },
      };
    },
  };
}

/**
 * The same platform with its bus requests (both sides) and stream consumers reported to
 * `metrics`. Applied by composition roots after `withNamespace`, so labels carry the plain
 * subjects and stream names the services use.
 */
export function withMetrics(platform: Platform, metrics: PlatformMetrics): Platform {
  return {
    ...platform,
    runtime: platform.runtime,
    isReady: () => platform.isReady(),
    close: () => platform.close(),
    bus: meteredBus(platform.bus, metrics),
    streams: meteredStreams(platform.streams, metrics),
  };
}
