import { randomUUID } from 'node:crypto';
import { WEBHOOK_INFLIGHT_BUCKET, webhookReplicaAliveSubject } from '@wap/contracts';
import { decodeJson, encodeJson, type Platform } from '@wap/platform';
import { startTestRuntime, testLogger } from '@wap/testing';
import {
  ClaimPendingError,
  IDEMPOTENCY_BUCKET,
  createDuplicateClaims,
  type EventRunState,
} from './duplicate-claims';
import { REPLICAS_BUCKET } from '@wap/contracts';
import { startReplicaLiveness } from './replica-liveness';

/** Claims and liveness between replicas that share one platform, as replicas share NATS. */
describe.each(['embedded', 'distributed'] as const)(
  'replica liveness and dead holders on the %s runtime',
  (runtime) => {
    let platform: Platform;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ platform, cleanup } = await startTestRuntime(runtime, {
        serviceName: 'webhook-liveness-test',
      }));
    });
    afterAll(async () => {
      await cleanup();
    });

    const liveness = (id = randomUUID()) =>
      startReplicaLiveness({
        kv: platform.kv,
        bus: platform.bus,
        id,
        heartbeatMs: 100,
        ttlMs: 5_000,
        probeTimeoutMs: 200,
        nowMs: () => platform.clock.now().getTime(),
        logger: testLogger(),
      });

    test('a running replica is alive; once stopped, or with a key but nobody answering, or answering without a key, it is dead', async () => {
      const [observer, other] = await Promise.all([liveness(), liveness()]);
      expect(await observer.isAlive(other.id)).toBe(true);
      await other.stop();
      expect(await observer.isAlive(other.id)).toBe(false);

      const replicas = await platform.kv.bucket(REPLICAS_BUCKET);
      const crashed = randomUUID();
      await replicas.put(crashed, encodeJson(Date.now()));
      expect(await observer.isAlive(crashed)).toBe(false);

      const cutOff = randomUUID();
      const answering = platform.bus.serve(webhookReplicaAliveSubject(cutOff), async () => ({
        data: new Uint8Array(),
      }));
      expect(await observer.isAlive(cutOff)).toBe(false);
      await answering.unsubscribe();
      await observer.stop();
    });

    test('a replica with its key that answers too late is slow, not dead', async () => {
      const observer = await liveness();
      const slow = randomUUID();
      await (await platform.kv.bucket(REPLICAS_BUCKET)).put(slow, encodeJson(Date.now()));
      let release: () => void = () => undefined;
      const stalled = new Promise<void>((resolve) => {
        release = resolve;
      });
      const answering = platform.bus.serve(webhookReplicaAliveSubject(slow), async () => {
        await stalled;
        return { data: new Uint8Array() };
      });
      expect(await observer.isAlive(slow)).toBe(true);
      release();
      await answering.unsubscribe();
      await observer.stop();
    });

    /** Claims of replica `self`, to whom `dead` is dead and everyone else alive. */
    async function claimsOf(dead: string, state: EventRunState | undefined) {
      return createDuplicateClaims({
        replica: { id: 'self', isAlive: async (replicaId) => replicaId !== dead },
        idempotency: await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 }),
        inflight: await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET),
        nowMs: () => Date.now(),
        leaseMs: 30_000,
        waitForFirstMs: 300,
        pollMs: 10,
        inflightAbandonMs: 600_000,
        runOfEvent: async () => state,
      });
    }

    test('an unstored idempotency claim of a dead replica is taken over with its ids; a live one still makes repeats wait', async () => {
      const idempotency = await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 });
      const dead = randomUUID();
      const claims = await claimsOf(dead, undefined);
      const held = { eventId: randomUUID(), runId: randomUUID() };
      const fresh = { eventId: randomUUID(), runId: randomUUID() };

      const ofDead = `dead.${randomUUID()}`;
      await idempotency.put(
        ofDead,
        encodeJson({ ...held, stored: false, claimedAtMs: Date.now(), holder: dead }),
      );
      const taken = await claims.claimIdempotency(ofDead, fresh);
      expect(taken).toMatchObject({ kind: 'held', ...held });
      await (taken.kind === 'held' ? taken.confirm() : Promise.resolve());
      expect(decodeJson((await idempotency.get(ofDead))?.value ?? encodeJson(null))).toMatchObject({
        ...held,
        stored: true,
        holder: 'self',
      });

      const ofLive = `live.${randomUUID()}`;
      await idempotency.put(
        ofLive,
        encodeJson({ ...held, stored: false, claimedAtMs: Date.now(), holder: randomUUID() }),
      );
      await expect(claims.claimIdempotency(ofLive, fresh)).rejects.toBeInstanceOf(
        ClaimPendingError,
      );
    });

    test('a claim taken over from this replica under its own ids still confirms', async () => {
      const idempotency = await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 });
      const claims = await claimsOf('nobody', undefined);
      const key = `taken.${randomUUID()}`;
      const ids = { eventId: randomUUID(), runId: randomUUID() };
      const claim = await claims.claimIdempotency(key, ids);
      const entry = await idempotency.get(key);
      const record = decodeJson(entry?.value ?? encodeJson(null)) as object;
      await idempotency.update(
        key,
        encodeJson({ ...record, holder: 'another' }),
        entry?.revision ?? 0,
      );
      await expect(claim.kind === 'held' ? claim.confirm() : undefined).resolves.toBeUndefined();
    });

    test.each([
      ['taken over with its ids when its event has no run', 'none', 'held-same'],
      ['taken over with fresh ids when its run ended', 'ended', 'held-fresh'],
      ['kept while its run is going', 'active', 'duplicate'],
      ['kept while the runner cannot say', undefined, 'duplicate'],
    ] as const)(
      'a recent fingerprint claim of a dead replica is %s',
      async (_label, state, expected) => {
        const inflight = await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
        const dead = randomUUID();
        const claims = await claimsOf(dead, state);
        const key = `fp.${randomUUID()}`;
        const held = { eventId: randomUUID(), runId: randomUUID() };
        const fresh = { eventId: randomUUID(), runId: randomUUID() };
        await inflight.put(key, encodeJson({ ...held, claimedAtMs: Date.now(), holder: dead }));

        const claimed = await claims.claimFingerprint(key, fresh);

        const ids = expected === 'held-fresh' ? fresh : held;
        expect(claimed).toMatchObject({
          kind: expected === 'duplicate' ? 'duplicate' : 'held',
          eventId: ids.eventId,
        });
        if (claimed.kind === 'held') expect(claimed.runId).toBe(ids.runId);
      },
    );

    test('a recent fingerprint claim of a live replica is a duplicate, whatever its event', async () => {
      const inflight = await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      const claims = await claimsOf('nobody', 'none');
      const key = `fp.${randomUUID()}`;
      const held = { eventId: randomUUID(), runId: randomUUID() };
      await inflight.put(
        key,
        encodeJson({ ...held, claimedAtMs: Date.now(), holder: randomUUID() }),
      );
      expect(
        await claims.claimFingerprint(key, { eventId: randomUUID(), runId: randomUUID() }),
      ).toEqual({ kind: 'duplicate', eventId: held.eventId });
    });
  },
);
