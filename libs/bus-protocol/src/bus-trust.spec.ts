import pino from 'pino';
import { z } from 'zod';
import { createBusSigner, createBusVerifier, generateBusKeySet, type BusKeySet } from '@wap/auth';
import type { Actor, BusPrincipal, RequestSubjectSpec } from '@wap/contracts';
import { ASSERTION_HEADER, requestDigest, trustedBus } from './bus-trust';
import { createEmbeddedBus } from '@wap/platform';
import type { Bus, BusCaller } from '@wap/platform';
import { decodeJson, encodeJson } from '@wap/platform';
import { callApi, callRoute, serveApi, serveRoutes } from './rpc';

// The attacks a process on the bus can make, each sent as raw bytes on the real embedded bus
// with real Ed25519 keys; only the trusted side is the code under test.
const logger = pino({ level: 'silent' });
const USER_SUBJECT = 'storage.api.spec_user_thing.v1';
const SERVICE_SUBJECT = 'storage.api.spec_service_thing.v1';
const SUBJECTS: readonly RequestSubjectSpec[] = [
  { subject: USER_SUBJECT, server: 'storage', callers: ['gateway'], user: true },
  { subject: SERVICE_SUBJECT, server: 'storage', callers: ['workflow-runner'], user: false },
];
const subjects = (subject: string) => SUBJECTS.find((spec) => spec.subject === subject);
const ALICE: Actor = {
  userId: '6f0e7f3c-3a55-4f7b-9d6c-2b1e0f4a5b6c',
  subject: 'test|alice',
  email: 'alice@example.com',
  name: 'Alice',
  platformAdmin: false,
};

describe('the bus trust layer', () => {
  let keys: BusKeySet;
  let raw: ReturnType<typeof createEmbeddedBus>;
  let now: number;
  const seen: BusCaller[] = [];
  const refused: string[] = [];

  const as = async (principal: BusPrincipal, keySet: BusKeySet = keys): Promise<Bus> =>
    trustedBus(raw, {
      signer: await createBusSigner(keySet.signingKeys[principal]),
      verifier: await createBusVerifier(keys.trustedKeys, { now: () => now }),
      logger,
      subjects,
      onRefused: ({ reason }) => refused.push(reason),
    });

  /** Sends bytes with an assertion of the sender's choosing, as a plain NATS client would. */
  const sendRaw = async (subject: string, body: unknown, assertion?: string) => {
    const reply = await raw.request(subject, encodeJson(body), {
      timeoutMs: 2_000,
      headers: assertion ? { [ASSERTION_HEADER]: assertion } : {},
    });
    return { headers: reply.headers, body: decodeJson(reply.data) };
  };

  beforeAll(async () => {
    keys = generateBusKeySet('spec');
    raw = createEmbeddedBus(logger);
    now = Date.now();
    const storage = await as('storage');
    for (const subject of [USER_SUBJECT, SERVICE_SUBJECT]) {
      serveApi(
        storage,
        { subject: subject, request: z.object({ value: z.number() }), reply: z.unknown() },
        async (request, caller) => {
          seen.push(caller);
          return { value: request.value, userId: caller.user?.userId ?? null };
        },
        { queue: 'storage', logger },
      );
    }
  });
  afterAll(async () => {
    await raw.close();
  });
  beforeEach(() => {
    seen.length = 0;
    refused.length = 0;
    now = Date.now();
  });

  const REFUSED = { error: { code: 'UNAUTHORIZED', message: 'The bus request was refused' } };

  test('the gateway asks for a person and the handler sees who, from the assertion alone', async () => {
    const gateway = await as('gateway');
    const reply = await callApi(
      gateway,
      { subject: USER_SUBJECT, request: z.unknown(), reply: z.unknown() },
      { value: 1 },
      {
        timeoutMs: 2_000,
        onBehalfOf: ALICE,
        requestId: 'req-1',
      },
    );
    expect(reply).toEqual({ value: 1, userId: ALICE.userId });
    expect(seen).toEqual([{ principal: 'gateway', user: ALICE, requestId: 'req-1' }]);
  });

  test('a request without an assertion is refused before the handler runs', async () => {
    expect((await sendRaw(USER_SUBJECT, { value: 1 })).body).toEqual(REFUSED);
    expect(seen).toEqual([]);
    expect(refused).toEqual(['missing']);
  });

  test('an assertion signed with a key the services do not trust is refused (forged)', async () => {
    const stranger = generateBusKeySet('spec');
    const forger = await createBusSigner(stranger.signingKeys.gateway);
    const body = { value: 1 };
    const assertion = await forger.sign({
      audience: 'storage',
      digest: requestDigest(encodeJson(body), {}),
      user: ALICE,
    });
    expect((await sendRaw(USER_SUBJECT, body, assertion)).body).toEqual(REFUSED);
    expect(refused).toEqual(['bad_signature']);
  });

  test("a service's own key cannot name a person, nor pass for the gateway's", async () => {
    const chatKey = JSON.parse(keys.signingKeys.chat) as Record<string, string>;
    // chat's key under the gateway's kid: the signature does not verify with the gateway's key.
    const posing = await createBusSigner(JSON.stringify({ ...chatKey, kid: 'gateway:spec' }));
    const body = { value: 2 };
    const digest = requestDigest(encodeJson(body), {});
    const posed = await posing.sign({ audience: 'storage', digest, user: ALICE });
    expect((await sendRaw(USER_SUBJECT, body, posed)).body).toEqual(REFUSED);
    const chat = await createBusSigner(keys.signingKeys.chat);
    await expect(chat.sign({ audience: 'storage', digest, user: ALICE })).rejects.toThrow(
      /only the gateway/,
    );
    const unnamed = await chat.sign({ audience: 'storage', digest });
    expect((await sendRaw(USER_SUBJECT, body, unnamed)).body).toEqual(REFUSED);
    expect(refused).toEqual(['bad_signature', 'caller']);
    expect(seen).toEqual([]);
  });

  test('an expired assertion is refused', async () => {
    const gateway = await createBusSigner(keys.signingKeys.gateway);
    const body = { value: 3 };
    const assertion = await gateway.sign({
      audience: 'storage',
      digest: requestDigest(encodeJson(body), {}),
      user: ALICE,
    });
    now += 60_000;
    expect((await sendRaw(USER_SUBJECT, body, assertion)).body).toEqual(REFUSED);
    expect(refused).toEqual(['expired']);
  });

  test('an assertion for another service is refused', async () => {
    const gateway = await createBusSigner(keys.signingKeys.gateway);
    const body = { value: 4 };
    const assertion = await gateway.sign({
      audience: 'chat',
      digest: requestDigest(encodeJson(body), {}),
      user: ALICE,
    });
    expect((await sendRaw(USER_SUBJECT, body, assertion)).body).toEqual(REFUSED);
    expect(refused).toEqual(['audience']);
  });

  test('a copy of an assertion already answered is refused (replay), and so is one moved to other bytes', async () => {
    const gateway = await createBusSigner(keys.signingKeys.gateway);
    const body = { value: 5 };
    const assertion = await gateway.sign({
      audience: 'storage',
      digest: requestDigest(encodeJson(body), {}),
      user: ALICE,
    });
    expect((await sendRaw(USER_SUBJECT, body, assertion)).body).toEqual({
      value: 5,
      userId: ALICE.userId,
    });
    expect((await sendRaw(USER_SUBJECT, body, assertion)).body).toEqual(REFUSED);
    const other = await gateway.sign({
      audience: 'storage',
      digest: requestDigest(encodeJson(body), {}),
      user: ALICE,
    });
    expect((await sendRaw(USER_SUBJECT, { value: 6 }, other)).body).toEqual(REFUSED);
    expect(refused).toEqual(['replayed', 'digest']);
  });

  test('a subject answers only the callers the registry lists, and a person where it needs one', async () => {
    const runner = await as('workflow-runner');
    const gateway = await as('gateway');
    await expect(
      callApi(
        runner,
        { subject: SERVICE_SUBJECT, request: z.unknown(), reply: z.unknown() },
        { value: 7 },
        { timeoutMs: 2_000 },
      ),
    ).resolves.toEqual({ value: 7, userId: null });
    await expect(
      callApi(
        gateway,
        { subject: SERVICE_SUBJECT, request: z.unknown(), reply: z.unknown() },
        { value: 8 },
        { timeoutMs: 2_000 },
      ),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(
      callApi(
        gateway,
        { subject: USER_SUBJECT, request: z.unknown(), reply: z.unknown() },
        { value: 9 },
        { timeoutMs: 2_000 },
      ),
    ).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(refused).toEqual(['caller', 'user_required']);
  });

  test("a route's parts are checked with its own schemas before its handler, and its actor is the assertion's", async () => {
    const ROUTE_SUBJECT = 'storage.api.spec_route.v1';
    const route = {
      operationId: 'spec_route',
      summary: 'a route of this spec',
      method: 'POST',
      path: '/spec/:id',
      owner: 'storage',
      subject: ROUTE_SUBJECT,
      auth: 'session',
      bodyKind: 'json',
      request: {
        params: z.object({ id: z.uuid() }),
        body: z.object({ name: z.string().min(1) }),
      },
      responses: {},
    } as const;
    const routeSubjects = (subject: string) =>
      subject === ROUTE_SUBJECT
        ? { subject, server: 'storage' as const, callers: ['gateway' as const], user: true }
        : subjects(subject);
    const trusted = async (principal: BusPrincipal) =>
      trustedBus(raw, {
        signer: await createBusSigner(keys.signingKeys[principal]),
        verifier: await createBusVerifier(keys.trustedKeys, { now: () => now }),
        logger,
        subjects: routeSubjects,
      });
    const handled: unknown[] = [];
    const [served] = serveRoutes(
      await trusted('storage'),
      [route],
      'storage',
      {
        spec_route: async (request) => {
          handled.push(request.actor);
          return { status: 200, body: { ok: true } };
        },
      },
      { queue: 'storage', logger },
    );
    const gateway = await trusted('gateway');
    const call = (params: Record<string, string>, body: unknown, actor: Actor | null) =>
      callRoute(
        gateway,
        ROUTE_SUBJECT,
        { requestId: 'r', actor, params, query: {}, headers: {}, body },
        { timeoutMs: 2_000 },
      );
    try {
      await expect(call({ id: 'not-a-uuid' }, { name: 'x' }, ALICE)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        status: 400,
      });
      await expect(call({ id: ALICE.userId }, { name: '' }, ALICE)).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
      });
      expect(handled).toEqual([]);
      await expect(call({ id: ALICE.userId }, { name: 'x' }, ALICE)).resolves.toEqual({
        status: 200,
        body: { ok: true },
      });
      expect(handled).toEqual([ALICE]);
    } finally {
      await served?.unsubscribe();
    }
  });

  test('a bus without the trust layer serves nothing', async () => {
    const subject = 'storage.api.spec_untrusted.v1';
    const served = serveApi(
      raw,
      { subject: subject, request: z.unknown(), reply: z.unknown() },
      async () => ({ ok: true }),
      {
        queue: 'storage',
        logger,
      },
    );
    try {
      expect((await sendRaw(subject, {})).body).toEqual(REFUSED);
    } finally {
      await served.unsubscribe();
    }
  });
});
