import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { sql } from 'drizzle-orm';
import { generateCredentialKey, parseCredentialKeys, sealedKeyId } from '@wap/auth';
import {
  oauthRedirectUriFor,
  startMcpRegistryService,
  type McpRegistryConfig,
} from '@wap/mcp-registry-service';
import { parseAllowlist } from '@wap/egress';
import {
  DEAD_LETTER_HEADERS,
  WEBHOOK_RECEIVED_SUBJECT,
  deadLetterSubject,
  type Run,
  type Workflow,
} from '@wap/contracts';
import { encodeJson } from '@wap/platform';
import { busKeyEnvironment, eventually, testNatsUrl, repositoryRoot } from '@wap/testing';
import {
  createWorkspace,
  fundedWorkspace,
  http,
  SESSION_SECRET,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** A credential key id per run, so the keys of this file are its own. */
const OLD_KEY = generateCredentialKey('k1');
const NEW_KEY = generateCredentialKey('k2');

function registryConfig(keys: string): McpRegistryConfig {
  return {
    keyring: parseCredentialKeys(keys),
    // The registered server is a closed local port: registration stores the credential, the
    // sync fails at once, and nothing leaves the machine.
    egressAllowlist: parseAllowlist('127.0.0.1'),
    envAllowlist: new Set(),
    extraCaCerts: [],
    connectTimeoutMs: 2000,
    syncTimeoutMs: 5000,
    callTimeoutMs: 5000,
    oauthRedirectUri: oauthRedirectUriFor('http://localhost:3000'),
  };
}

// Each CLI run is a Node process that loads its bundle and connects to NATS: seconds each on a
// busy machine, several per test.
jest.setTimeout(240_000);

// The CLI is a process of its own on the deployment's NATS (it keeps nothing in-process), so it
// runs against the distributed runtime; `session` alone needs no platform.
describe('the admin CLI against a distributed stack', () => {
  let stack: TestStack;
  let owner: Person;
  /** The CLI bundled as the image's build bundles it (tools/build-app.mjs), in a folder of its own. */
  let bundleDir: string;
  let operatorKeys: Record<string, string>;

  /** Runs the CLI as `node dist/apps/admin/src/main.js <args>` does in an image, in the stack's namespace. */
  function admin(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [join(bundleDir, 'main.js'), ...args],
        {
          cwd: repositoryRoot,
          env: {
            PATH: process.env['PATH'] ?? '',
            HOME: process.env['HOME'] ?? '',
            NATS_URL: testNatsUrl(),
            NATS_NAMESPACE: stack.natsNamespace ?? '',
            ...operatorKeys,
            ...env,
          },
        },
        (error, stdout, stderr) => {
          const status = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ status, stdout, stderr });
        },
      );
    });
  }

  async function adminJson<T>(args: string[]): Promise<T> {
    const result = await admin([...args, '--json']);
    if (result.status !== 0) throw new Error(`admin ${args.join(' ')}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  beforeAll(async () => {
    // Inside the repository, so the bundle finds node_modules as it does in the image.
    mkdirSync(join(repositoryRoot, 'tmp'), { recursive: true });
    bundleDir = mkdtempSync(join(repositoryRoot, 'tmp', 'admin-cli-'));
    await build({
      entryPoints: [join(repositoryRoot, 'apps/admin/src/main.ts')],
      outfile: join(bundleDir, 'main.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      tsconfig: join(repositoryRoot, 'tsconfig.base.json'),
      logLevel: 'warning',
    });
    operatorKeys = busKeyEnvironment('operator');
    stack = await startStack('distributed', {
      services: {
        mcpRegistry: { config: registryConfig(`${NEW_KEY},${OLD_KEY}`), environment: {} },
      },
    });
    owner = await signedInPerson(stack, 'admin-cli-owner');
  });
  afterAll(async () => {
    await stack?.stop();
    if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
  });

  test('the stack runs in a namespace the CLI can join', () => {
    expect(stack.natsNamespace).toMatch(/^[a-z0-9]+$/);
  });

  test('credits grant adds credits through workflow-runner; members read the new balance', async () => {
    const workspaceId = await createWorkspace(stack, owner, 'credits');
    const granted = await admin(['credits', 'grant', workspaceId, '25', '--reason', 'trial']);
    expect(granted).toMatchObject({ status: 0, stderr: '' });
    expect(granted.stdout).toBe(`granted 25 credits on workspace ${workspaceId}: balance 25\n`);
    const corrected = await adminJson<{ balance: number }>([
      'credits',
      'grant',
      workspaceId,
      '-5',
      '--reason=typo',
    ]);
    expect(corrected).toEqual({ workspaceId, amount: -5, balance: 20 });
    const balance = await http(`${stack.url}/workspaces/${workspaceId}/credits`, {
      cookie: owner.cookie,
    });
    expect(balance).toMatchObject({ status: 200, body: { balance: 20 } });
  });

  test('credits grant on a workspace that does not exist fails with its Error code', async () => {
    const result = await admin([
      'credits',
      'grant',
      '00000000-0000-4000-8000-000000000000',
      '5',
      '--reason',
      'nobody',
    ]);
    expect(result).toEqual({
      status: 1,
      stdout: '',
      stderr: 'error: Workspace not found (NOT_FOUND)\n',
    });
  });

  test('workspaces list shows each workspace with its owners; delete removes it for its members', async () => {
    const workspaceId = await createWorkspace(stack, owner, 'to be deleted');
    const listed = await adminJson<{ workspaces: unknown[] }>(['workspaces', 'list']);
    expect(listed.workspaces).toContainEqual({
      id: workspaceId,
      name: 'to be deleted',
      deleted: false,
      members: 1,
      owners: [owner.userId],
    });
    const text = await admin(['workspaces', 'list']);
    expect(text.stdout).toMatch(/^ID +NAME +MEMBERS +OWNERS +STATE\n/);
    expect(text.stdout).toContain(`${workspaceId}  to be deleted`);

    const deleted = await admin(['workspaces', 'delete', workspaceId]);
    expect(deleted).toEqual({
      status: 0,
      stdout: `deleted workspace ${workspaceId}\n`,
      stderr: '',
    });
    const me = await http(`${stack.url}/me`, { cookie: owner.cookie });
    expect((me.body as { workspaces: { id: string }[] }).workspaces.map((w) => w.id)).not.toContain(
      workspaceId,
    );
    const again = await admin(['workspaces', 'delete', workspaceId]);
    expect(again.stdout).toBe(`workspace ${workspaceId} was already deleted\n`);

    const active = await adminJson<{ workspaces: { id: string }[] }>(['workspaces', 'list']);
    expect(active.workspaces.map((workspace) => workspace.id)).not.toContain(workspaceId);
    const all = await adminJson<{ workspaces: unknown[] }>(['workspaces', 'list', '--all']);
    expect(all.workspaces).toContainEqual(
      expect.objectContaining({ id: workspaceId, deleted: true }),
    );

    const unknown = await admin(['workspaces', 'delete', '00000000-0000-4000-8000-000000000000']);
    expect(unknown).toMatchObject({
      status: 1,
      stderr: 'error: Workspace not found (NOT_FOUND)\n',
    });
  });

  test('session mints a cookie the gateway accepts; --admin makes it a platform administrator', async () => {
    const email = uniqueEmail('minted');
    const minted = await admin(['session', email, 'Minted Person'], {
      SESSION_JWT_SECRET: SESSION_SECRET,
      DEV_SIGN_IN: 'on',
    });
    expect(minted.status).toBe(0);
    const cookie = minted.stdout.trim();
    expect(cookie).toMatch(/^session=[\w-]+\.[\w-]+\.[\w-]+$/);
    const me = await http(`${stack.url}/me`, { cookie });
    expect(me).toMatchObject({ status: 200, body: { user: { email, name: 'Minted Person' } } });

    const workspaceId = await createWorkspace(stack, owner, 'granted by a minted admin');
    const grant = (adminCookie: string) =>
      http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
        method: 'POST',
        cookie: adminCookie,
        body: { amount: 3, reason: 'minted' },
      });
    expect((await grant(cookie)).status).toBe(403);
    const adminSession = await admin(
      ['session', uniqueEmail('minted-admin'), '--admin', '--json'],
      {
        SESSION_JWT_SECRET: SESSION_SECRET,
        DEV_SIGN_IN: 'on',
      },
    );
    const adminCookie = (JSON.parse(adminSession.stdout) as { cookie: string }).cookie;
    expect(await grant(adminCookie)).toMatchObject({ status: 201, body: { balance: 3 } });

    const refused = await admin(['session', email], {
      SESSION_JWT_SECRET: SESSION_SECRET,
      DEV_SIGN_IN: 'on',
      NODE_ENV: 'production',
    });
    expect(refused).toEqual({
      status: 1,
      stdout: '',
      stderr: 'error: NODE_ENV=production verifies sessions against an identity provider only\n',
    });
    const withoutDevSignIn = await admin(['session', email], {
      SESSION_JWT_SECRET: SESSION_SECRET,
    });
    expect(withoutDevSignIn).toEqual({
      status: 1,
      stdout: '',
      stderr: 'error: development sessions need DEV_SIGN_IN=on, as the gateway has it\n',
    });
  });

  test('sign-in-link prints a one-time link to the gateway that signs the person in once', async () => {
    const email = uniqueEmail('linked');
    const printed = await admin(['sign-in-link', email, 'Linked Person'], {
      SESSION_JWT_SECRET: SESSION_SECRET,
      PUBLIC_BASE_URL: stack.url,
    });
    expect(printed.status).toBe(0);
    const link = printed.stdout.trim();
    expect(link).toMatch(new RegExp(`^${stack.url}/session/link\\?token=[\\w.-]+$`));
    const signedIn = await http(link);
    expect(signedIn.status).toBe(303);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const me = await http(`${stack.url}/me`, { cookie });
    expect(me).toMatchObject({ status: 200, body: { user: { email, name: 'Linked Person' } } });
    expect((await http(link)).status).toBe(401);
    const refused = await admin(['sign-in-link', email], {
      SESSION_JWT_SECRET: SESSION_SECRET,
      NODE_ENV: 'production',
    });
    expect(refused.status).toBe(1);
  });

  test('credentials rotate re-wraps credentials an older replica left under the old key', async () => {
    const workspaceId = await createWorkspace(stack, owner, 'mcp keys');
    const registered = await http(`${stack.url}/mcp-registry`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'keyed',
        serverType: 'custom',
        description: 'a server with a bearer token',
        serverUrl: 'https://127.0.0.1:1/mcp',
        authConfig: { value: 'bearer-token-of-the-rotation-test' },
      },
    });
    expect(registered.status).toBe(201);
    const serverId = (registered.body as { mcp: { id: string } }).mcp.id;
    const keyOfStoredSecret = async () => {
      const result = await stack.platform.sql.db.execute(
        sql`select sealed_secret from mcp_registry.servers where id = ${serverId}`,
      );
      const [row] = (result as { rows: { sealed_secret: string }[] }).rows;
      return sealedKeyId(row?.sealed_secret ?? '');
    };
    expect(await keyOfStoredSecret()).toBe('k2');

    // A replica whose list still names the old key first (a rollback, or a deploy that put the
    // keys in the wrong order) re-wraps everything under that key when it starts.
    const older = await startMcpRegistryService({
      platform: await stack.as('mcp-registry'),
      logger: stack.logger,
      config: registryConfig(`${OLD_KEY},${NEW_KEY}`),
      environment: {},
      migrationsFolder: join(repositoryRoot, 'apps/mcp-registry/migrations'),
    });
    await older.stop();
    expect(await keyOfStoredSecret()).toBe('k1');

    const rotated = await admin(['credentials', 'rotate']);
    expect(rotated).toEqual({
      status: 0,
      stdout:
        '1 stored credential(s) of MCP servers, connected accounts and provider connections re-wrapped; all are now under key k2\n',
      stderr: '',
    });
    expect(await keyOfStoredSecret()).toBe('k2');
    expect(await adminJson(['credentials', 'rotate'])).toEqual({ keyId: 'k2', rewrapped: 0 });
  });

  test('streams shows the namespace streams, KV buckets and durable consumers, and no others', async () => {
    const namespace = stack.natsNamespace ?? '';
    const { streams } = await adminJson<{
      streams: { name: string; kind: string; subjects: string[]; consumers: { name: string }[] }[];
    }>(['streams']);
    const names = streams.map((stream) => stream.name);
    expect(names).toContain(`${namespace.toUpperCase()}_WEBHOOK_EVENTS`);
    expect(names).toContain(`${namespace.toUpperCase()}_RUNS`);
    expect(names).toContain(`KV_${namespace}_directory`);
    const ours = new RegExp(`^(${namespace.toUpperCase()}_|KV_${namespace}_|OBJ_${namespace}_)`);
    expect(names.filter((name) => !ours.test(name))).toEqual([]);
    const events = streams.find((stream) => stream.name.endsWith('_WEBHOOK_EVENTS'));
    expect(events).toMatchObject({
      kind: 'stream',
      subjects: [`${namespace}.webhook.evt.received.v1`],
    });
    expect(events?.consumers.map((consumer) => consumer.name)).toContain(
      'workflow-runner-test-events',
    );
    const text = await admin(['streams']);
    expect(text.stdout).toMatch(/_WEBHOOK_EVENTS \(stream\): \d+ messages/);
    expect(text.stdout).toMatch(/CONSUMER +FILTER +PENDING +ACK PENDING +REDELIVERED +WAITING/);
  });

  test('dead-letters lists what a consumer gave up on, and replay sends it back where it came from', async () => {
    // A message that does not parse: workflow-runner moves it to the dead letters at once.
    const poison = `{"poison":"${randomUUID()}"`;
    await (
      await stack.as('webhook-ingest')
    ).streams.publish(WEBHOOK_RECEIVED_SUBJECT, new TextEncoder().encode(poison));
    interface Listed {
      seq: number;
      consumer: string;
      reason: string;
      attempts: number;
      stream: string;
      subject: string;
      bytes: number;
    }
    const listed = await eventually(async () => {
      const { deadLetters } = await adminJson<{ deadLetters: Listed[] }>(['dead-letters', 'list']);
      const moved = deadLetters.find((letter) => letter.bytes === Buffer.byteLength(poison));
      expect(moved).toMatchObject({
        consumer: 'workflow-runner-test-events',
        reason: 'unparsable',
        attempts: 1,
        stream: 'WEBHOOK_EVENTS',
        subject: WEBHOOK_RECEIVED_SUBJECT,
      });
      return deadLetters;
    });
    expect(listed.length).toBeGreaterThan(0);
    const text = await admin(['dead-letters', 'list']);
    expect(text.stdout).toMatch(/SEQ +TIME +CONSUMER +REASON +ATTEMPTS +FROM +BYTES +ERROR/);
    expect(text.stdout).toMatch(/workflow-runner-test-events +unparsable +1 +WEBHOOK_EVENTS/);

    // A test event a consumer once gave up on (the database refused it then): replayed, it is
    // stored now, and the dead letter is gone.
    const workspaceId = await createWorkspace(stack, owner, 'dead letters');
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: owner.cookie,
      body: {
        workspaceId,
        name: 'Replayed',
        trigger: { type: 'custom_webhook' },
        steps: [{ type: 'delay', settings: { seconds: 0 } }],
      },
    });
    const { workflow, webhook } = created.body as {
      workflow: { id: string };
      webhook: { id: string };
    };
    const eventId = randomUUID();
    const receivedAt = new Date().toISOString();
    await stack.platform.streams.publish(
      deadLetterSubject('workflow-runner-test-events'),
      encodeJson({
        type: WEBHOOK_RECEIVED_SUBJECT,
        id: eventId,
        time: receivedAt,
        data: {
          eventId,
          webhookId: webhook.id,
          workflowId: workflow.id,
          workspaceId,
          receivedAt,
          headers: { 'content-type': 'application/json' },
          payload: { kind: 'inline', body: { replayed: true } },
        },
      }),
      {
        headers: {
          [DEAD_LETTER_HEADERS.stream]: 'WEBHOOK_EVENTS',
          [DEAD_LETTER_HEADERS.subject]: WEBHOOK_RECEIVED_SUBJECT,
          [DEAD_LETTER_HEADERS.seq]: '1',
          [DEAD_LETTER_HEADERS.reason]: 'failed',
          [DEAD_LETTER_HEADERS.attempts]: '5',
          [DEAD_LETTER_HEADERS.error]: 'the database was refusing it',
          'Nats-Msg-Id': eventId,
        },
      },
    );
    const letter = await eventually(async () => {
      const { deadLetters } = await adminJson<{ deadLetters: Listed[] }>(['dead-letters', 'list']);
      const found = deadLetters.find((one) => one.reason === 'failed' && one.attempts === 5);
      if (!found) throw new Error('the planted dead letter is not listed');
      return found;
    });
    const replayed = await adminJson<{ seq: number; subject: string }>([
      'dead-letters',
      'replay',
      String(letter.seq),
    ]);
    expect(replayed).toMatchObject({ seq: letter.seq, subject: WEBHOOK_RECEIVED_SUBJECT });
    await eventually(async () => {
      const events = await http(`${stack.url}/workflows/${workflow.id}/test-events`, {
        cookie: owner.cookie,
      });
      expect((events.body as { events: { id: string }[] }).events.map((event) => event.id)).toEqual(
        [eventId],
      );
    });
    const { deadLetters } = await adminJson<{ deadLetters: Listed[] }>(['dead-letters', 'list']);
    expect(deadLetters.map((one) => one.seq)).not.toContain(letter.seq);
    // A deployment whose workflow-runner never started has no DEAD_LETTERS stream yet.
    const untouched = await admin(['dead-letters', 'list'], {
      NATS_NAMESPACE: `nodead${randomUUID().slice(0, 8)}`,
    });
    expect(untouched).toMatchObject({ status: 0, stdout: 'no dead letters\n' });
    const missing = await admin(['dead-letters', 'replay', String(letter.seq)]);
    expect(missing).toMatchObject({ status: 1, stderr: `error: no dead letter ${letter.seq}\n` });
  });

  test('runs retry retries an ended run of any workspace as a new run; an unknown run fails with its Error code', async () => {
    const { owner: runOwner, workspaceId } = await fundedWorkspace(stack, 'cli-retry', 20);
    const created = await http(`${stack.url}/workflows`, {
      method: 'POST',
      cookie: runOwner.cookie,
      body: {
        workspaceId,
        name: 'Retried by an operator',
        trigger: { type: 'custom_webhook' },
        steps: [
          // Refused by the runner's egress guard (no allowlist here): a step that always fails.
          {
            type: 'http_request',
            name: 'call',
            settings: { method: 'GET', url: 'http://127.0.0.1:9/' },
          },
        ],
      },
    });
    expect(created.status).toBe(201);
    const { workflow } = created.body as { workflow: Workflow };
    const runStarted = async () => {
      const started = await http(`${stack.url}/workflows/${workflow.id}/run`, {
        method: 'POST',
        cookie: runOwner.cookie,
      });
      expect(started.status).toBe(202);
      return (started.body as { runId: string }).runId;
    };
    const runOf = async (runId: string) =>
      ((await http(`${stack.url}/runs/${runId}`, { cookie: runOwner.cookie })).body as { run: Run })
        .run;
    const runId = await runStarted();
    await eventually(async () => expect((await runOf(runId)).status).toBe('failed'));

    const retried = await adminJson<{ retryId: string }>(['runs', 'retry', runId]);
    expect(retried).toEqual({
      runId,
      retryId: expect.any(String),
      workflowId: workflow.id,
      workspaceId,
      attempt: 2,
    });
    const retry = await eventually(async () => {
      const run = await runOf(retried.retryId);
      expect(run.status).toBe('failed');
      return run;
    });
    expect(retry).toMatchObject({ retry_of: runId, attempt: 2 });
    const text = await admin(['runs', 'retry', retried.retryId, '--from-start']);
    expect(text).toMatchObject({ status: 0, stderr: '' });
    expect(text.stdout).toMatch(
      new RegExp(
        `^run ${retried.retryId} retried as run \\S+ \\(attempt 3\\) of workflow ${workflow.id} in workspace ${workspaceId}\\n$`,
      ),
    );

    const missing = await admin(['runs', 'retry', randomUUID()]);
    expect(missing).toEqual({
      status: 1,
      stdout: '',
      stderr: 'error: Run not found (NOT_FOUND)\n',
    });
  });

  test('usage errors exit 2 with the usage text; an absent service exits 3 and says which', async () => {
    const wrong = await admin(['credits', 'grant', 'not-a-uuid', '5', '--reason', 'x']);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/^error: not a workspace id \(a UUID\): not-a-uuid\n\nusage: /);
    const unknown = await admin(['workspaces', 'rename']);
    expect(unknown).toMatchObject({ status: 2, stdout: '' });
    expect(unknown.stderr).toContain('error: unknown command: workspaces rename');
    const help = await admin(['help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('credentials rotate');

    const elsewhere = await admin(['credentials', 'rotate'], { NATS_NAMESPACE: 'nobodyhere' });
    expect(elsewhere).toEqual({
      status: 3,
      stdout: '',
      stderr:
        'error: mcp-registry did not answer on nobodyhere.mcp.api.operator_rewrap_credentials.v1 ' +
        'in namespace nobodyhere (no responders): is it running?\n',
    });
  });
});
