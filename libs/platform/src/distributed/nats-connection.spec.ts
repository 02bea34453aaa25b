import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { NATS_RELEASE_ADAPTED, connectNats } from './nats-connection';

const natsUrl = process.env['NATS_URL'] || 'nats://127.0.0.1:4222';
const PUBLISHERS = 200;

/** write(2) calls this process has made so far (Linux). */
function writeSyscalls(): number {
  const match = /^syscw: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  if (!match?.[1]) throw new Error('/proc/self/io has no syscw line');
  return Number(match[1]);
}

/**
 * Publishes once from each of `PUBLISHERS` callbacks of one event-loop turn (as separate async
 * handlers do), and counts the process's write(2) calls until the server has them all.
 */
async function writesForSeparatePublishers(nc: NatsConnection, subject: string): Promise<number> {
  const before = writeSyscalls();
  await new Promise<void>((resolve) => {
    for (let index = 0; index < PUBLISHERS; index += 1) {
      setImmediate(() => {
        nc.publish(subject, `message ${index}`);
        if (index === PUBLISHERS - 1) resolve();
      });
    }
  });
  await nc.flush();
  return writeSyscalls() - before;
}

/**
 * Counts the RequestErrors nats-core builds while `work` runs. Its request code takes the class
 * from its errors module, by two names (the package's `exports` keep that file private, hence
 * the path).
 */
async function requestErrorsBuiltDuring(work: () => Promise<void>): Promise<number> {
  const errorsPath = join(dirname(require.resolve('@nats-io/nats-core')), 'errors.js');
  type ErrorClass = new (message?: string, options?: ErrorOptions) => Error;
  const errors = (await import(errorsPath)) as {
    RequestError: ErrorClass;
    errors: { RequestError: ErrorClass };
  };
  const original = errors.RequestError;
  let built = 0;
  const counting = class extends original {
    constructor(message?: string, options?: ErrorOptions) {
      super(message, options);
      built += 1;
    }
  };
  errors.RequestError = counting;
  errors.errors.RequestError = counting;
  try {
    await work();
  } finally {
    errors.RequestError = original;
    errors.errors.RequestError = original;
  }
  return built;
}

describe('connectNats', () => {
  const connections: NatsConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
  });

  it('patches the nats.js release installed (an upgrade must re-read what it patches)', () => {
    for (const name of ['@nats-io/nats-core', '@nats-io/transport-node']) {
      // nats-core's `exports` keep its package.json private: found from its entry point.
      const entry = require.resolve(name);
      const manifest = join(entry.slice(0, entry.lastIndexOf(name) + name.length), 'package.json');
      const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
      expect({ name, version }).toEqual({ name, version: NATS_RELEASE_ADAPTED });
    }
  });

  it('writes what the handlers of one event-loop turn publish together, and delivers all of it', async () => {
    const subject = `coalescing.${process.pid}.${Date.now()}`;
    const receiver = await connect({ servers: natsUrl });
    const coalescing = await connectNats({ servers: natsUrl });
    const stock = await connect({ servers: natsUrl });
    connections.push(receiver, coalescing, stock);
    const received: string[] = [];
    receiver.subscribe(subject, {
      callback: (_error: Error | null, msg: Msg) => {
        received.push(msg.string());
      },
    });
    await receiver.flush();

    const coalescedWrites = await writesForSeparatePublishers(coalescing, subject);
    // The premise, on this machine: the stock transport writes once per publishing callback.
    const stockWrites = await writesForSeparatePublishers(stock, subject);

    expect(stockWrites).toBeGreaterThanOrEqual(PUBLISHERS);
    // A fifth, not a fixed handful: the count is the whole process's, and a busy CI machine lets
    // the other connections' pings and jest's own reporting land in the same window (24 seen).
    expect(coalescedWrites).toBeLessThan(stockWrites / 5);
    await receiver.flush();
    const expected = Array.from({ length: PUBLISHERS }, (_, index) => `message ${index}`);
    expect(received).toEqual([...expected, ...expected]);
  });

  it('answers requests without building an Error for each; a request with no answer still fails', async () => {
    const subject = `answered.${process.pid}.${Date.now()}`;
    const responder = await connect({ servers: natsUrl });
    // As the platform connects: without nats.js's async traces, which build an Error per request.
    const requester = await connectNats({ servers: natsUrl, noAsyncTraces: true });
    connections.push(responder, requester);
    responder.subscribe(subject, {
      callback: (_error: Error | null, msg: Msg) => {
        msg.respond(`pong ${msg.string()}`);
      },
    });
    await responder.flush();

    const answers: string[] = [];
    const builtForAnswers = await requestErrorsBuiltDuring(async () => {
      for (let index = 0; index < 50; index += 1) {
        answers.push((await requester.request(subject, `${index}`, { timeout: 5_000 })).string());
      }
    });
    expect(answers).toEqual(Array.from({ length: 50 }, (_, index) => `pong ${index}`));
    expect(builtForAnswers).toBe(0);

    // The count works, and unanswered requests fail as they did: no responders, then a timeout.
    const builtForFailures = await requestErrorsBuiltDuring(async () => {
      await expect(requester.request(`${subject}.nobody`, 'ping')).rejects.toThrow(
        /no responders/i,
      );
    });
    expect(builtForFailures).toBeGreaterThan(0);
    responder.subscribe(`${subject}.silent`, { callback: () => undefined });
    await responder.flush();
    await expect(requester.request(`${subject}.silent`, 'ping', { timeout: 200 })).rejects.toThrow(
      /timeout/i,
    );
  });
});
