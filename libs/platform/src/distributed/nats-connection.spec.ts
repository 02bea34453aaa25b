import { readFileSync } from 'node:fs';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { connectNats } from './nats-connection';

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

describe('connectNats', () => {
  const connections: NatsConnection[] = [];
  afterAll(async () => {
    await Promise.all(connections.map((nc) => nc.close()));
  });

  it('writes what the handlers of one event-loop turn publish together, and delivers all of it', async () => {
    const subject = `coalescing.${process.pid}.${Date.now()}`;
    const receiver = await connect({ servers: natsUrl });
    const coalescing = await connectNats({ servers: natsUrl });
    const stock = await connect({ servers: natsUrl });
    connections.push(receiver, coalescing, stock);
    const received: string[] = [];
    receiver.subscribe(subject, {
      callback: (_error: Error | null, msg: Msg) => received.push(msg.string()),
    });
    await receiver.flush();

    const coalescedWrites = await writesForSeparatePublishers(coalescing, subject);
    // The premise, on this machine: the stock transport writes once per publishing callback.
    const stockWrites = await writesForSeparatePublishers(stock, subject);

    expect(stockWrites).toBeGreaterThanOrEqual(PUBLISHERS);
    expect(coalescedWrites).toBeLessThan(10);
    await receiver.flush();
    const expected = Array.from({ length: PUBLISHERS }, (_, index) => `message ${index}`);
    expect(received).toEqual([...expected, ...expected]);
  });
});
