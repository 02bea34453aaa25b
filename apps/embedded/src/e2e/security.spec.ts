import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { headers as natsHeaders, nkeyAuthenticator, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';
import { importJWK, SignJWT } from 'jose';
import { generateBusKeySet, generateCredentialKey, mintSessionToken } from '@wap/auth';
import {
  directoryKey,
  START_RUN_SUBJECT,
  WEBHOOK_RECEIVED_SUBJECT,
  inboxPrefixOf,
  REPLICAS_BUCKET,
  REQUEST_SUBJECTS,
  SERVICE_NAMES,
  type Actor,
  type BusPrincipal,
  type RequestSubjectSpec,
} from '@wap/contracts';
import { ASSERTION_HEADER, requestDigest } from '@wap/bus-protocol';
import type { BusCredentials } from '@wap/service-runtime';
import {
  createTestDatabase,
  startChatCompletionsProvider,
  type ChatCompletionsProvider,
  type TestDatabase,
  PROCESS_BUS_KEY_VERSION,
  repositoryRoot,
  runApp,
  startProcessBus,
  type ProcessBus,
  type RunningProcess,
} from '@wap/testing';
import { http, uniqueEmail } from './stack';

// The distributed runtime as separate processes on a nats-server of the spec's own with
// authentication on (decisions 112 and 113), attacked as a process on the same network would:
// without credentials, with one service's credentials on another's subjects, and on every
// request subject of the registry with no actor, a forged one, an expired one and one meant for
// another service.

const SESSION_SECRET = 'security-spec-session-secret-0123456789abcdef';
const REFUSED = { error: { code: 'UNAUTHORIZED', message: 'The bus request was refused' } };
const ATTACKS = ['no assertion', 'forged', 'expired', 'another audience'] as const;
type Attack = (typeof ATTACKS)[number];

jest.setTimeout(240_000);

describe('the bus with authentication on, attacked', () => {
  let credentials: BusCredentials;
  /** A key set the services do not trust: the same kids, other keys. */
  const strangers = generateBusKeySet(PROCESS_BUS_KEY_VERSION);
  let bus: ProcessBus;
  let database: TestDatabase;
  let provider: ChatCompletionsProvider;
  let gatewayUrl: string;
  const processes = new Map<string, RunningProcess>();
  const healthPorts = new Map<string, number>();
  const connections = new Map<BusPrincipal, NatsConnection>();

  const connectAs = async (principal: BusPrincipal): Promise<NatsConnection> => {
    const known = connections.get(principal);
    if (known) return known;
    const seed = credentials.environmentOf(principal).NATS_NKEY_SEED;
    const nc = await connect({
      servers: bus.url,
      authenticator: nkeyAuthenticator(new TextEncoder().encode(seed)),
      inboxPrefix: inboxPrefixOf(principal),
    });
    connections.set(principal, nc);
    return nc;
  };

  beforeAll(async () => {
    bus = await startProcessBus();
    credentials = bus.credentials;
    database = await createTestDatabase();
    // Every turn hangs after its first words, so that its control subject is served.
    provider = await startChatCompletionsProvider({
      fallback: { text: ['Thinking'], interrupt: { afterChunks: 2, how: 'hang' } },
    });
    const common = {
      DATABASE_URL: database.url,
      SESSION_JWT_SECRET: SESSION_SECRET,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      CREDENTIALS_ENCRYPTION_KEYS: generateCredentialKey('security'),
      LLM_BASE_URL: provider.baseUrl,
      LLM_MODEL: 'security-model',
    };
    const started = [...SERVICE_NAMES, 'gateway' as const].map(async (app) => {
      const running = runApp(app, common, bus);
      processes.set(app, running);
      if (app === 'gateway') {
        const [, url] = await running.waitForLine(/"url":"(http:\/\/[^"]+)"/, 90_000);
        gatewayUrl = url ?? '';
      } else {
        const [, port] = await running.waitForLine(
          /"healthPort":(\d+),"msg":"[a-z-]+ ready"/,
          90_000,
        );
        healthPorts.set(app, Number(port));
      }
    });
    await Promise.all(started);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...connections.values()].map((nc) => nc.close()));
    await Promise.all([...processes.values()].map((running) => running.stop('SIGKILL')));
    await provider?.stop();
    await database?.drop();
    await bus?.stop();
  });

  const person = async (label: string) => {
    const email = uniqueEmail(label);
    const cookie = `session=${await mintSessionToken({
      secret: SESSION_SECRET,
      sub: `test|${email}`,
      email,
      name: label,
    })}`;
    const me = await http(`${gatewayUrl}/me`, { cookie });
    expect(me.status).toBe(200);
    const actor: Actor = {
      userId: (me.body as { user: { id: string } }).user.id,
      subject: `test|${email}`,
      email,
      name: label,
      platformAdmin: false,
    };
    return { cookie, actor };
  };

  test('the platform works through the gateway with every service as its own NATS user', async () => {
    const { cookie } = await person('security-owner');
    const created = await http(`${gatewayUrl}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Guarded' },
    });
    expect(created.status).toBe(201);
    expect((await http(`${gatewayUrl}/me`, { cookie })).body).toMatchObject({
      workspaces: [{ name: 'Guarded', role: 'owner' }],
    });
  });

  test('a client without credentials is refused by NATS', async () => {
    await expect(connect({ servers: bus.url, reconnect: false })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  test("a client with one service's credentials cannot publish to another service's subjects", async () => {
    const chat = await connectAs('chat');
    for (const subject of ['storage.api.add_member.v1', 'storage.api.create_api_key.v1']) {
      await expect(chat.request(subject, '{}', { timeout: 2_000 })).rejects.toThrow(
        /Permissions Violation for Publish/,
      );
    }
    // Nor listen to another service's requests, nor read another principal's replies.
    const eavesdropper = await connect({
      servers: bus.url,
      authenticator: nkeyAuthenticator(
        new TextEncoder().encode(credentials.environmentOf('chat').NATS_NKEY_SEED),
      ),
      inboxPrefix: inboxPrefixOf('chat'),
    });
    try {
      const refused = new Promise<string>((resolve) => {
        void (async () => {
          for await (const status of eavesdropper.status()) {
            if (status.type === 'error') resolve(String(status.error));
          }
        })();
      });
      eavesdropper.subscribe('storage.api.add_member.v1');
      eavesdropper.subscribe(`${inboxPrefixOf('gateway')}.>`);
      await expect(refused).resolves.toMatch(/Permissions Violation for Subscription/);
    } finally {
      await eavesdropper.close();
    }
  });

  /** The concrete subject of a registry entry: per-instance subjects need a live instance. */
  async function concreteSubject(spec: RequestSubjectSpec): Promise<string> {
    if (spec.subject === 'webhook.api.replica_alive.v1') {
      const kv = await new Kvm(jetstream(await connectAs('webhook-ingest'))).open(REPLICAS_BUCKET);
      const keys = await kv.keys();
      for await (const key of keys) return `${spec.subject}.${key}`;
      throw new Error('no webhook-ingest replica is registered');
    }
    if (spec.subject === 'chat.api.control_turn.v1') {
      const { cookie } = await person('security-turns');
      const workspace = await http(`${gatewayUrl}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'Turns' },
      });
      const workspaceId = (workspace.body as { workspace: { id: string } }).workspace.id;
      const chat = await http(`${gatewayUrl}/ai-chat/conversations`, {
        method: 'POST',
        cookie,
        body: { workspaceId, title: 'A turn that hangs' },
      });
      const chatId = (chat.body as { conversation: { id: string } }).conversation.id;
      // Counted before the message is sent: the turn may reach the provider before the 202 is read.
      const requestsBefore = provider.requests.length;
      const message = await http(`${gatewayUrl}/ai-chat/conversations/${chatId}/messages`, {
        method: 'POST',
        cookie,
        body: { content: 'Hello' },
      });
      expect(message.status).toBe(202);
      // Bounded, so that a turn that never reaches the provider fails here, with chat's log.
      const reached = provider.waitForRequest(requestsBefore + 1);
      const waited = await Promise.race([
        reached.then(() => true),
        sleep(30_000).then(() => false),
      ]);
      if (!waited) {
        throw new Error(`the turn never reached the provider:\n${processes.get('chat')?.output()}`);
      }
      return `${spec.subject}.${(message.body as { requestId: string }).requestId}`;
    }
    return spec.subject;
  }

  async function assertionFor(
    spec: RequestSubjectSpec,
    attack: Exclude<Attack, 'no assertion'>,
    data: Uint8Array,
    user: Actor,
  ): Promise<string> {
    const caller = spec.callers[0] as BusPrincipal;
    const keys = attack === 'forged' ? strangers : credentials.keySet;
    const jwk = JSON.parse(keys.signingKeys[caller]) as Record<string, string>;
    const now = Math.floor(Date.now() / 1000);
    const issuedAt = attack === 'expired' ? now - 120 : now;
    const audience =
      attack === 'another audience'
        ? (SERVICE_NAMES.find((name) => name !== spec.server) ?? 'chat')
        : spec.server;
    // A grant under the caller's key (a stranger's when forged) and an assertion under its MAC key.
    const macKey = randomBytes(32);
    const grant = await new SignJWT({ key: macKey.toString('base64url') })
      .setProtectedHeader({ alg: 'EdDSA', kid: jwk['kid'] ?? '' })
      .setIssuer(caller)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(await importJWK(jwk, 'EdDSA'));
    const assertion = await new SignJWT({
      dig: requestDigest(data, {}),
      ...(spec.user || caller === 'gateway' ? { usr: user } : {}),
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(caller)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + 30)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(macKey);
    return `${grant}~${assertion}`;
  }

  test.each([
    ['the directory', 'directory', ['chat', 'mcp-registry', 'workflow-runner', 'webhook-ingest']],
    ['credit balances', 'credit-balances', ['webhook-ingest']],
    ['webhook addresses', 'webhooks', ['webhook-ingest']],
  ] as const)(
    "%s: another service's credentials read the bucket but cannot write, delete or purge it (issue 41 item 4)",
    async (_label, bucketName, readers) => {
      const { cookie, actor } = await person(`security-kv-${bucketName}`);
      const created = await http(`${gatewayUrl}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'Owned by storage' },
      });
      const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
      const outsider = randomBytes(8).toString('hex');
      for (const reader of readers) {
        const kv = await new Kvm(jetstream(await connectAs(reader))).open(bucketName);
        // Reading is what a reader is for.
        await kv.keys();
        // An outsider written in as the workspace's owner: refused.
        const forged = JSON.stringify({
          id: workspaceId,
          name: 'Forged',
          deleted: false,
          members: { [actor.userId]: 'owner', [outsider]: 'owner' },
        });
        await expect(
          kv.put(directoryKey(workspaceId), forged, { timeout: 2_000 }),
        ).rejects.toThrow();
        await expect(kv.delete(directoryKey(workspaceId))).rejects.toThrow();
        const jsm = await jetstream(await connectAs(reader)).jetstreamManager();
        await expect(jsm.streams.purge(`KV_${bucketName}`)).rejects.toThrow();
        await expect(jsm.streams.delete(`KV_${bucketName}`)).rejects.toThrow();
      }
      // The owner still answers for its workspace: nothing the readers tried took effect.
      expect((await http(`${gatewayUrl}/me`, { cookie })).body).toMatchObject({
        workspaces: [{ id: workspaceId, name: 'Owned by storage', role: 'owner' }],
      });
      const directory = await new Kvm(jetstream(await connectAs('storage'))).open('directory');
      const entry = await directory.get(directoryKey(workspaceId));
      expect(entry?.string() ?? '').not.toContain(outsider);
    },
  );

  test("stream messages: no other service's credentials publish to WEBHOOK_EVENTS or RUNS, and webhook-ingest's NATS credential alone makes no test event or run (issue 41 item 4)", async () => {
    for (const principal of ['chat', 'mcp-registry', 'storage', 'gateway'] as const) {
      const js = jetstream(await connectAs(principal));
      for (const subject of [WEBHOOK_RECEIVED_SUBJECT, START_RUN_SUBJECT]) {
        await expect(js.publish(subject, '{}', { timeout: 2_000 })).rejects.toThrow();
      }
    }
    const { cookie } = await person('security-streams');
    const workspace = await http(`${gatewayUrl}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Streams' },
    });
    const workspaceId = (workspace.body as { workspace: { id: string } }).workspace.id;
    const created = await http(`${gatewayUrl}/workflows`, {
      method: 'POST',
      cookie,
      body: {
        workspaceId,
        name: 'Target',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', settings: { seconds: 0 } }],
      },
    });
    const { workflow, webhook } = created.body as {
      workflow: { id: string };
      webhook: { id: string };
    };
    // Hand-made, with webhook-ingest's NATS credential but not its signing key.
    const forgedId = crypto.randomUUID();
    const receivedAt = new Date().toISOString();
    const forged = {
      eventId: forgedId,
      webhookId: webhook.id,
      workflowId: workflow.id,
      workspaceId,
      receivedAt,
      headers: { 'content-type': 'application/json' },
      payload: { kind: 'inline', body: { forged: true } },
    };
    await jetstream(await connectAs('webhook-ingest')).publish(
      WEBHOOK_RECEIVED_SUBJECT,
      JSON.stringify({
        type: WEBHOOK_RECEIVED_SUBJECT,
        id: forgedId,
        time: receivedAt,
        data: forged,
      }),
      { msgID: forgedId },
    );
    // A genuine request after it: once it is a test event, the forgery was handled before it.
    const genuine = await http(`${gatewayUrl}/webhooks/${webhook.id}`, {
      method: 'POST',
      body: { genuine: true },
    });
    expect(genuine.status).toBe(200);
    const deadline = Date.now() + 20_000;
    let events: Array<{ id: string; body: unknown }> = [];
    while (Date.now() < deadline && events.length === 0) {
      const listed = await http(`${gatewayUrl}/workflows/${workflow.id}/test-events`, { cookie });
      events = (listed.body as { events: Array<{ id: string; body: unknown }> }).events;
      if (events.length === 0) await sleep(200);
    }
    expect(events.map((event) => event.body)).toEqual([{ genuine: true }]);
  });

  test('every request subject of the registry refuses a missing, forged, expired or misaddressed actor', async () => {
    const { actor } = await person('security-victim');
    const data = new TextEncoder().encode(JSON.stringify({ attack: true }));
    const answers: string[] = [];
    for (const spec of REQUEST_SUBJECTS) {
      const caller = spec.callers[0] as BusPrincipal;
      const nc = await connectAs(caller);
      const subject = await concreteSubject(spec);
      for (const attack of ATTACKS) {
        const headers = natsHeaders();
        if (attack !== 'no assertion') {
          headers.set(ASSERTION_HEADER, await assertionFor(spec, attack, data, actor));
        }
        const reply = await nc.request(subject, data, { timeout: 5_000, headers });
        const body = reply.json<unknown>();
        answers.push(
          `${subject} ${attack}: ${JSON.stringify(body) === JSON.stringify(REFUSED) ? 'refused' : JSON.stringify(body)}`,
        );
      }
    }
    expect(answers.filter((answer) => !answer.endsWith(': refused'))).toEqual([]);
    expect(answers).toHaveLength(REQUEST_SUBJECTS.length * ATTACKS.length);

    // Each serving service logged and counted what it refused, by reason; no assertion leaked.
    const reasons = new Map<string, number>();
    for (const [app, port] of healthPorts) {
      const scrape = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      for (const match of scrape.matchAll(
        /^wap_bus_refused_total\{[^}]*reason="([a-z_]+)"[^}]*\} (\d+)/gm,
      )) {
        reasons.set(match[1] ?? '', (reasons.get(match[1] ?? '') ?? 0) + Number(match[2]));
      }
      const output = processes.get(app)?.output() ?? '';
      expect(output).not.toMatch(/eyJ[\w-]+\.eyJ/);
    }
    for (const reason of ['missing', 'bad_signature', 'expired', 'audience']) {
      expect(reasons.get(reason)).toBeGreaterThanOrEqual(REQUEST_SUBJECTS.length);
    }
  });

  /** Runs the admin CLI from source with the given environment. */
  function admin(args: string[], env: Partial<Record<string, string>>) {
    return new Promise<{ status: number; stderr: string; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', join(repositoryRoot, 'apps/admin/src/main.ts'), ...args],
        {
          cwd: repositoryRoot,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: process.env['HOME'] ?? '',
            NATS_URL: bus.url,
            ...env,
          },
        },
        (error, stdout, stderr) =>
          resolve({
            status: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
            stdout,
            stderr,
          }),
      );
    });
  }

  test('the admin CLI works only with the operator credentials', async () => {
    const operator = credentials.environmentOf('operator');
    const chat = credentials.environmentOf('chat');
    const listed = await admin(['workspaces', 'list', '--json'], operator);
    expect(listed.status).toBe(0);
    const { workspaces } = JSON.parse(listed.stdout) as {
      workspaces: { id: string; name: string }[];
    };
    const guarded = workspaces.find((workspace) => workspace.name === 'Guarded');
    if (!guarded) throw new Error(`no Guarded workspace in ${listed.stdout}`);
    const grant = ['credits', 'grant', guarded.id, '5', '--reason', 'security spec'];
    expect(await admin(grant, operator)).toMatchObject({ status: 0 });
    expect((await admin(grant, chat)).status).not.toBe(0);
    expect(
      (await admin(grant, { ...operator, BUS_SIGNING_KEY: chat.BUS_SIGNING_KEY })).status,
    ).not.toBe(0);

    // Another principal's credentials: NATS refuses the operator's inbox, or the key's holder.
    expect((await admin(['workspaces', 'list'], chat)).status).not.toBe(0);
    expect(
      (await admin(['workspaces', 'list'], { ...operator, BUS_SIGNING_KEY: chat.BUS_SIGNING_KEY }))
        .status,
    ).not.toBe(0);
    // Without a NATS user it cannot connect; without a key it does not try.
    const { NATS_NKEY_SEED: _seed, ...withoutNatsUser } = operator;
    const noNatsUser = await admin(['workspaces', 'list'], withoutNatsUser);
    expect(noNatsUser.status).not.toBe(0);
    const noKey = await admin(['workspaces', 'list'], {});
    expect(noKey).toMatchObject({ status: 2 });
    expect(noKey.stderr).toContain('BUS_SIGNING_KEY');
  });
});
