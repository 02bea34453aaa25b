import {
  RequestError,
  TimeoutError,
  type Msg,
  type NatsConnection,
  type Subscription as NatsSubscription,
} from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { BusTimeoutError, NoRespondersError } from '../errors';
import type { Bus, BusMessage, BusReply, MessageHeaders, Subscription } from '../platform';
import { fromMsgHdrs, toMsgHdrs } from './headers';
import { InFlight, type OpenResources } from './inflight';

function toBusMessage(msg: Msg): BusMessage {
  return { subject: msg.subject, data: msg.data, headers: fromMsgHdrs(msg.headers) };
}

/**
 * Wraps a NATS subscription whose callback starts async handlers: unsubscribing drains the
 * subscription (messages already received are still dispatched) and then waits for the
 * handlers, so that requests in progress still get their reply.
 */
function listen(
  nc: NatsConnection,
  open: OpenResources,
  subject: string,
  queue: string | undefined,
  handle: (msg: Msg) => Promise<void>,
): Subscription {
  const inFlight = new InFlight();
  const subscription: NatsSubscription = nc.subscribe(subject, {
    ...(queue ? { queue } : {}),
    callback: (error, msg) => {
      if (error) return;
      inFlight.track(handle(msg));
    },
  });
  const unsubscribe = open.add(async () => {
    if (!subscription.isClosed() && !nc.isClosed() && !nc.isDraining()) {
      await subscription.drain();
    }
    await inFlight.settled();
  });
  return { unsubscribe };
}

export function createNatsBus(nc: NatsConnection, open: OpenResources, logger: Logger): Bus {
  return {
    async request(subject, data, options) {
      try {
        const reply = await nc.request(subject, data, {
          timeout: options.timeoutMs,
          headers: toMsgHdrs(options.headers),
        });
        return toBusMessage(reply);
      } catch (error) {
        if (error instanceof TimeoutError) throw new BusTimeoutError(subject, options.timeoutMs);
        if (error instanceof RequestError && error.isNoResponders()) {
          throw new NoRespondersError(subject);
        }
        throw error;
      }
    },

    serve(subject, handler, options) {
      return listen(nc, open, subject, options?.queue, async (msg) => {
        let reply: BusReply;
        try {
          reply = await handler(toBusMessage(msg));
        } catch (error) {
          // A raw handler that throws has no reply to give; the caller sees a timeout. Typed
          // error replies are the job of serveApi, which never lets a handler throw here.
          logger.error({ err: error, subject }, 'bus handler failed');
          return;
        }
        msg.respond(reply.data, { headers: toMsgHdrs(reply.headers) });
      });
    },

    publish(subject, data, headers?: MessageHeaders) {
      nc.publish(subject, data, { headers: toMsgHdrs(headers) });
    },

    subscribe(subject, handler, options) {
      return listen(nc, open, subject, options?.queue, async (msg) => {
        try {
          await handler(toBusMessage(msg));
        } catch (error) {
          logger.error({ err: error, subject }, 'bus subscriber failed');
        }
      });
    },
  };
}
