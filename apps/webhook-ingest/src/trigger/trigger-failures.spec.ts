import { randomUUID } from 'node:crypto';
import {
  AppError,
  CREDIT_BALANCES_BUCKET,
  DIRECTORY_BUCKET,
  CreditSnapshot,
  WEBHOOKS_BUCKET,
  WEBHOOK_INFLIGHT_BUCKET,
  WebhookAddress,
  creditBalanceKey,
  webhookKey,
  type RawServiceRequest,
  WEBHOOK_EVENTS_STREAM_CONFIG,
} from '@wap/contracts';
import {
  createKvMirror,
  decodeJson,
  encodeJson,
  type KvBucket,
  type Platform,
} from '@wap/platform';
import { startTestRuntime, testLogger } from '@wap/testing';
import { createDirectoryClient, type DirectoryClient } from '@wap/workspace-directory';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '../config';
import { IDEMPOTENCY_BUCKET, createDuplicateClaims, type EventRunState } from './duplicate-claims';
import { fingerprintKey, idempotencyKey } from './request-identity';
import { createRateLimiter } from '@wap/http';
import { createTriggerHandlers } from './trigger-handler';

/**
 * "Nothing is acknowledged that was not stored": with no WEBHOOK_EVENTS stream to take the
 * request, the trigger answers 503 and gives back the key it claimed, and a retry then goes through.
 */
/** Replicas that are all alive: these claims are only ever left over by their age. */
const aliveReplicas = { id: randomUUID(), isAlive: async () => true };

describe.each(['embedded', 'distributed'] as const)(
  'trigger failures on the %s runtime',
  (runtime) => {
    let platform: Platform;
    let cleanup: () => Promise<void>;
    let directory: DirectoryClient;
    let stopMirrors: () => Promise<void>;
    let handlers: ReturnType<typeof createTriggerHandlers>;
    const address: WebhookAddress = {
      webhookId: randomUUID(),
      workflowId: randomUUID(),
      workspaceId: randomUUID(),
      status: 'live',
      customResponse: null,
      runningHours: null,
      queueOutsideWindow: true,
      creditCost: 1,
    };

    beforeAll(async () => {
      ({ platform, cleanup } = await startTestRuntime(runtime, {
        serviceName: 'webhook-ingest-test',
      }));
      const logger = testLogger();
      // No events stream exists yet: the request has nowhere to be stored.
      await (
        await platform.kv.bucket(WEBHOOKS_BUCKET)
      ).put(webhookKey(address.webhookId), encodeJson(address));
      await (
        await platform.kv.bucket(CREDIT_BALANCES_BUCKET)
      ).put(creditBalanceKey(address.workspaceId), encodeJson({ balance: 10 }));
      // storage owns the directory; it does not run here, so the spec makes the bucket.
      await platform.kv.bucket(DIRECTORY_BUCKET);
      directory = await createDirectoryClient({ kv: platform.kv, logger });
      const addresses = await createKvMirror({
        kv: platform.kv,
        bucket: WEBHOOKS_BUCKET,
        schema: WebhookAddress,
        logger,
      });
      const credits = await createKvMirror({
        kv: platform.kv,
        bucket: CREDIT_BALANCES_BUCKET,
        schema: CreditSnapshot,
        logger,
      });
      stopMirrors = async () => {
        await Promise.all([addresses.stop(), credits.stop(), directory.stop()]);
      };
      const nowMs = () => Date.now();
      handlers = createTriggerHandlers({
        platform,
        addresses,
        credits,
        directory,
        claims: createDuplicateClaims({
          replica: aliveReplicas,
          idempotency: await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 }),
          inflight: await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET),
          nowMs,
          leaseMs: 30_000,
          waitForFirstMs: 1_000,
          pollMs: 10,
          inflightAbandonMs: 600_000,
          runOfEvent: async () => undefined,
        }),
        rateLimiter: createRateLimiter({ perSecond: 1000, burst: 1000, maxAddresses: 10, nowMs }),
        config: DEFAULT_WEBHOOK_INGEST_CONFIG,
        logger,
      });
    });
    afterAll(async () => {
      await stopMirrors();
      await cleanup();
    });

    function request(body: unknown, headers: Record<string, string> = {}): RawServiceRequest {
      return {
        requestId: randomUUID(),
        method: 'POST',
        path: `/webhooks/${address.webhookId}`,
        params: { webhookId: address.webhookId },
        query: {},
        headers: { 'content-type': 'application/json', ...headers },
        protocol: 'https',
        host: 'hooks.example.com',
        remoteAddress: '203.0.113.9',
        apiKey: null,
        body: encodeJson(body),
      };
    }

    async function expectUnavailable(promise: Promise<unknown>) {
      const error = await promise.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).status).toBe(503);
    }

    test('claims are released when the run request cannot be stored, and the retries run', async () => {
      const body = { attempt: 'fingerprint' };
      const key = randomUUID();
      await expectUnavailable(handlers.trigger(request(body)));
      await expectUnavailable(handlers.trigger(request({ n: 1 }, { 'idempotency-key': key })));

      const inflight = await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      expect(await inflight.get(fingerprintKey(address.webhookId, body))).toBeNull();
      const idempotency = await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 });
      const recordOf = async () =>
        decodeJson(
          (await idempotency.get(idempotencyKey(address.webhookId, key)))?.value ??
            encodeJson(null),
        ) as { eventId: string; stored: boolean; claimedAtMs: number } | null;
      const released = await recordOf();
      expect(released).toMatchObject({ stored: false, claimedAtMs: 0 });

      await platform.streams.ensureStream(WEBHOOK_EVENTS_STREAM_CONFIG);
      expect((await handlers.trigger(request(body))).reply).toMatchObject({
        status: 200,
        body: { triggered: 1, skipped: 0 },
      });
      // The retry takes the released claim over with its ids: a run request that was stored
      // after all (a lost ack) would be deduplicated by its run id instead of running twice.
      const retried = await handlers.trigger(request({ n: 1 }, { 'idempotency-key': key }));
      expect(retried.reply).toMatchObject({
        status: 200,
        body: { triggered: 1, skipped: 0, eventId: released?.eventId },
      });
      expect(await recordOf()).toMatchObject({ eventId: released?.eventId, stored: true });
    });

    /** Claims for which a fingerprint claim older than 1 s is abandoned, if `state` allows. */
    async function claimsAbandoningAfterOneSecond(
      inflight: KvBucket,
      state: EventRunState | undefined,
    ) {
      return createDuplicateClaims({
        replica: aliveReplicas,
        idempotency: await platform.kv.bucket(IDEMPOTENCY_BUCKET, { ttlMs: 60_000 }),
        inflight,
        nowMs: () => Date.now(),
        leaseMs: 30_000,
        waitForFirstMs: 1_000,
        pollMs: 10,
        inflightAbandonMs: 1_000,
        runOfEvent: async () => state,
      });
    }

    test.each([
      ['kept while the runner cannot say where its event is', undefined, 5_000, 'duplicate'],
      ['kept while its run is still going', 'active', 5_000, 'duplicate'],
      [
        'kept while it is younger than the abandon age, even if its run ended',
        'ended',
        0,
        'duplicate',
      ],
      ['taken over when its event never became a run', 'none', 5_000, 'held'],
      ['taken over when its run ended without releasing it', 'ended', 5_000, 'held'],
    ] as const)('a fingerprint claim is %s', async (_label, state, ageMs, outcome) => {
      const inflight = await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      const claims = await claimsAbandoningAfterOneSecond(inflight, state);
      const key = fingerprintKey(address.webhookId, { leftOver: randomUUID() });
      const holder = randomUUID();
      await inflight.put(key, encodeJson({ eventId: holder, claimedAtMs: Date.now() - ageMs }));
      const fresh = { eventId: randomUUID(), runId: randomUUID() };

      const claimed = await claims.claimFingerprint(key, fresh);

      expect(claimed.kind).toBe(outcome);
      const expectedHolder = outcome === 'held' ? fresh.eventId : holder;
      expect(claimed.eventId).toBe(expectedHolder);
      expect(decodeJson((await inflight.get(key))?.value ?? encodeJson(null))).toMatchObject({
        eventId: expectedHolder,
      });
    });

    test('a fingerprint key whose value is no claim is taken over', async () => {
      const inflight = await platform.kv.bucket(WEBHOOK_INFLIGHT_BUCKET);
      const claims = await claimsAbandoningAfterOneSecond(inflight, undefined);
      const key = fingerprintKey(address.webhookId, { notAClaim: randomUUID() });
      await inflight.put(key, new TextEncoder().encode('not a claim'));
      expect(
        await claims.claimFingerprint(key, { eventId: randomUUID(), runId: randomUUID() }),
      ).toMatchObject({ kind: 'held' });
    });
  },
);
