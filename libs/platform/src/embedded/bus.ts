import type { Logger } from 'pino';
import { BusTimeoutError, NoRespondersError } from '../errors';
import type {
  Bus,
  BusMessage,
  BusReply,
  BusRequestOptions,
  BusServeOptions,
  MessageHeaders,
  Subscription,
} from '../platform';
import { subjectMatches } from './subjects';

interface Listener {
  pattern: string;
  queue?: string;
  active: boolean;
  /** Handlers still running, so that unsubscribe can let them finish. */
  inFlight: Set<Promise<unknown>>;
}

/** A `serve` subscription: its handler's reply answers a request. */
interface Server extends Listener {
  kind: 'server';
  handler: (message: BusMessage) => Promise<BusReply>;
}

/** A `subscribe` subscription: gets every message on its subjects, answers nothing. */
interface Subscriber extends Listener {
  kind: 'subscriber';
  handler: (message: BusMessage) => Promise<void> | void;
  /** Messages reach one subscriber in order, as from one NATS subscription. */
  tail: Promise<void>;
}

type AnyListener = Server | Subscriber;

/** Copies so that neither side can change a message after it was sent. */
function copyMessage(subject: string, data: Uint8Array, headers?: MessageHeaders): BusMessage {
  return { subject, data: new Uint8Array(data), headers: { ...headers } };
}

/**
 * Picks the listeners that get one message: every listener outside a queue group, and one
 * member of each queue group (round robin per group).
 */
function chooseRecipients<T extends Listener>(
  listeners: T[],
  subject: string,
  rotation: Map<string, number>,
): T[] {
  const matching = listeners.filter(
    (listener) => listener.active && subjectMatches(listener.pattern, subject),
  );
  const recipients: T[] = [];
  const groups = new Map<string, T[]>();
  for (const listener of matching) {
    if (listener.queue === undefined) recipients.push(listener);
    else groups.set(listener.queue, [...(groups.get(listener.queue) ?? []), listener]);
  }
  for (const [queue, members] of groups) {
    const turn = rotation.get(queue) ?? 0;
    rotation.set(queue, turn + 1);
    const member = members[turn % members.length];
    if (member) recipients.push(member);
  }
  return recipients;
}

function track(listener: Listener, work: Promise<unknown>): void {
  listener.inFlight.add(work);
  void work.finally(() => listener.inFlight.delete(work));
}

async function detach<T extends Listener>(list: T[], listener: T): Promise<void> {
  listener.active = false;
  const index = list.indexOf(listener);
  if (index >= 0) list.splice(index, 1);
  await Promise.allSettled([...listener.inFlight]);
}

/**
 * In-process request/reply and publish/subscribe with NATS semantics: as on NATS, a request or
 * a publish reaches every matching subscription, whether made with serve or subscribe; only a
 * server's reply answers a request, and a publish's replies are dropped.
 */
/* eslint-disable-next-line max-lines-per-function --
  an adapter: one short method per Bus operation over the one subscription table */
export function createEmbeddedBus(logger: Logger): Bus & { close(): Promise<void> } {
  const listeners: AnyListener[] = [];
  const queueRotation = new Map<string, number>();

  /** Runs a server's handler; `onReply` gets its answer. Never inside the caller's own call. */
  function runServer(
    server: Server,
    message: BusMessage,
    onReply: (reply: BusReply) => void,
  ): void {
    const work = new Promise<void>((done) => setImmediate(done))
      .then(() => server.handler(message))
      .then(onReply)
      .catch((error: unknown) => {
        // As over NATS, a handler that fails without replying leaves the caller to time out.
        logger.error({ err: error, subject: message.subject }, 'bus request handler failed');
      });
    track(server, work);
  }

  function runSubscriber(subscriber: Subscriber, message: BusMessage): void {
    subscriber.tail = subscriber.tail
      .then(() => new Promise<void>((done) => setImmediate(done)))
      .then(() => (subscriber.active ? subscriber.handler(message) : undefined))
      .catch((error: unknown) => {
        logger.error({ err: error, subject: message.subject }, 'bus subscriber failed');
      });
    track(subscriber, subscriber.tail);
  }

  function listen(listener: AnyListener): Subscription {
    listeners.push(listener);
    return { unsubscribe: () => detach(listeners, listener) };
  }

  return {
    request(subject: string, data: Uint8Array, options: BusRequestOptions): Promise<BusMessage> {
      const recipients = chooseRecipients(listeners, subject, queueRotation);
      if (recipients.length === 0) return Promise.reject(new NoRespondersError(subject));
      return new Promise<BusMessage>((resolve, reject) => {
        let answered = false;
        const timer = setTimeout(() => {
          answered = true;
          reject(new BusTimeoutError(subject, options.timeoutMs));
        }, options.timeoutMs);
        for (const recipient of recipients) {
          const message = copyMessage(subject, data, options.headers);
          if (recipient.kind === 'subscriber') {
            runSubscriber(recipient, message);
            continue;
          }
          runServer(recipient, message, (reply) => {
            if (answered) return;
            answered = true;
            clearTimeout(timer);
            resolve(copyMessage(subject, reply.data, reply.headers));
          });
        }
      });
    },

    serve(subject, handler, options?: BusServeOptions): Subscription {
      return listen({
        kind: 'server',
        pattern: subject,
        queue: options?.queue,
        active: true,
        inFlight: new Set(),
        handler,
      });
    },

    publish(subject, data, headers) {
      for (const recipient of chooseRecipients(listeners, subject, queueRotation)) {
        const message = copyMessage(subject, data, headers);
        if (recipient.kind === 'subscriber') runSubscriber(recipient, message);
        else runServer(recipient, message, () => undefined);
      }
    },

    subscribe(subject, handler, options?: BusServeOptions): Subscription {
      return listen({
        kind: 'subscriber',
        pattern: subject,
        queue: options?.queue,
        active: true,
        inFlight: new Set(),
        handler,
        tail: Promise.resolve(),
      });
    },

    async close() {
      await Promise.all([...listeners].map((listener) => detach(listeners, listener)));
    },
  };
}
