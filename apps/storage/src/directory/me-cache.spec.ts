import { randomUUID } from 'node:crypto';
import { eventually, testLogger } from '@wap/testing';
import { runtimes, type RuntimeUnderTest } from '../testing/storage-harness';
import { createMeCache, type MeCache, type StoredMe } from './me-cache';

function answerFor(userId: string, name: string): StoredMe {
  return {
    user: { id: userId, email: `${name}@example.com`, name },
    workspaces: [],
    preferences: { approval_tasks_email: true },
  };
}

describe.each(runtimes)('the /me cache on %s', (_runtime, startRuntime) => {
  let runtime: RuntimeUnderTest;
  const caches: MeCache[] = [];

  beforeAll(async () => {
    runtime = await startRuntime();
  });

  afterAll(async () => {
    await Promise.all(caches.map((cache) => cache.stop()));
    await runtime?.cleanup();
  });

  /** One storage replica's cache; all of them share the runtime's bus. */
  function replica(now = () => runtime.platform.clock.now().getTime()): MeCache {
    const cache = createMeCache({ bus: runtime.platform.bus, logger: testLogger(), now });
    caches.push(cache);
    return cache;
  }

  test('a change on one replica drops the answer here at once and on every other replica', async () => {
    const here = replica();
    const there = replica();
    const userId = randomUUID();
    const bystander = randomUUID();
    for (const cache of [here, there]) {
      await cache.load(userId, async () => answerFor(userId, 'before'));
      await cache.load(bystander, async () => answerFor(bystander, 'bystander'));
    }
    expect(there.get(userId)).toEqual(answerFor(userId, 'before'));

    here.changed([userId]);
    expect(here.get(userId)).toBeUndefined();
    await eventually(async () => expect(there.get(userId)).toBeUndefined());
    expect(there.get(bystander)).toEqual(answerFor(bystander, 'bystander'));
    expect(here.get(bystander)).toEqual(answerFor(bystander, 'bystander'));
  });

  test('an answer read while a change arrived is returned but not kept', async () => {
    const cache = replica();
    const userId = randomUUID();
    const answer = await cache.load(userId, async () => {
      cache.changed([randomUUID()]);
      return answerFor(userId, 'raced');
    });
    expect(answer).toEqual(answerFor(userId, 'raced'));
    expect(cache.get(userId)).toBeUndefined();

    await cache.load(userId, async () => answerFor(userId, 'calm'));
    expect(cache.get(userId)).toEqual(answerFor(userId, 'calm'));
  });

  test('an unknown user is not kept', async () => {
    const cache = replica();
    const userId = randomUUID();
    expect(await cache.load(userId, async () => null)).toBeNull();
    expect(cache.get(userId)).toBeUndefined();
  });

  test('an answer is read again after a minute, in case a change was missed', async () => {
    let now = 1_000_000;
    const cache = replica(() => now);
    const userId = randomUUID();
    await cache.load(userId, async () => answerFor(userId, 'kept'));
    now += 59_999;
    expect(cache.get(userId)).toEqual(answerFor(userId, 'kept'));
    now += 1;
    expect(cache.get(userId)).toBeUndefined();
  });
});
