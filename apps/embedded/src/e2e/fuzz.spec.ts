import fc from 'fast-check';
import { ROUTES, type RouteSpec } from '@wap/contracts';
import { DEFAULT_WEBHOOK_INGEST_CONFIG } from '@wap/webhook-ingest-service';
import {
  requestsFor,
  send,
  type FuzzAnswer,
  type FuzzRequest,
  type FuzzWorld,
} from './fuzz-requests';
import {
  createWorkspace,
  http,
  signedInPerson,
  startStack,
  uniqueEmail,
  type Person,
  type TestStack,
} from './stack';

/**
 * Bad input at scale: generated requests to every route of the table and to the gateway's own
 * routes, on the embedded runtime. Whatever comes in, nothing answers 5xx, every refusal is an
 * Error body, no body carries a stack, and the platform still serves normal requests after.
 * A failure prints fast-check's seed and path: pass them to `fc.assert` to replay it.
 */

const SEED = 20_2607;
/** Requests per route: the table's routes and the gateway's own 8 make over 10,000. */
const RUNS_PER_ROUTE = 115;

type FuzzedRoute = Pick<
  RouteSpec,
  'method' | 'path' | 'auth' | 'bodyKind' | 'request' | 'upload'
> & {
  operationId: string;
};

/** Routes the gateway serves itself, outside the table. */
const GATEWAY_ROUTES: FuzzedRoute[] = [
  { operationId: 'root', method: 'GET', path: '/', auth: 'none', bodyKind: 'none' },
  { operationId: 'healthz', method: 'GET', path: '/healthz', auth: 'none', bodyKind: 'none' },
  { operationId: 'readyz', method: 'GET', path: '/readyz', auth: 'none', bodyKind: 'none' },
  { operationId: 'openapi', method: 'GET', path: '/openapi.json', auth: 'none', bodyKind: 'none' },
  { operationId: 'metrics', method: 'GET', path: '/metrics', auth: 'none', bodyKind: 'none' },
  {
    operationId: 'dev_sign_in',
    method: 'GET',
    path: '/dev/sign-in',
    auth: 'none',
    bodyKind: 'none',
  },
  {
    operationId: 'sign_in_method',
    method: 'GET',
    path: '/session/sign-in-method',
    auth: 'none',
    bodyKind: 'none',
  },
  {
    operationId: 'unknown',
    method: 'GET',
    path: '/no/such/:thing',
    auth: 'session',
    bodyKind: 'json',
  },
];

/** Sign-outs revoke the session on the server (decision 153): every request after one is a 401. */
const SESSION_ENDING_ROUTES: FuzzedRoute[] = [
  {
    operationId: 'sign_out',
    method: 'POST',
    path: '/session/sign-out',
    auth: 'session',
    bodyKind: 'none',
  },
  {
    operationId: 'sign_out_everywhere',
    method: 'POST',
    path: '/session/sign-out-everywhere',
    auth: 'session',
    bodyKind: 'none',
  },
];

/**
 * The table in its own order, but deletions last and the workspace's last of all: a generated
 * DELETE may remove the records, or the workspace (and its API key), that other requests name.
 * The sign-outs come after everything, since they end the sessions the other requests carry.
 */
const FUZZED: FuzzedRoute[] = [
  ...ROUTES.filter((route) => route.method !== 'DELETE'),
  ...GATEWAY_ROUTES,
  ...ROUTES.filter((route) => route.method === 'DELETE' && !route.path.startsWith('/workspaces/')),
  ...ROUTES.filter((route) => route.method === 'DELETE' && route.path.startsWith('/workspaces/')),
  ...SESSION_ENDING_ROUTES,
];

const SECRETS = {
  stripe: 'whsec_fuzz-stripe-secret',
  github: 'fuzz-github-secret',
  linear: 'fuzz-linear-secret',
  slack: 'fuzz-slack-secret',
};

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every id in an answer (records, their webhooks, members, turns), to mix into requests. */
function idsIn(body: unknown): string[] {
  return JSON.stringify(body ?? null).match(UUID) ?? [];
}

/** A stack frame, or a path of the code on this machine. */
const STACK_FRAME = /^\s+at .+:\d+(:\d+)?\)?$/m;
const SOURCE_PATHS = [process.cwd(), 'node_modules/', '/apps/', '/libs/'];

function leaksInternals(text: string): boolean {
  return STACK_FRAME.test(text) || SOURCE_PATHS.some((path) => text.includes(path));
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorBody(body: unknown, codeRequired: boolean): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { error, code } = body as { error?: unknown; code?: unknown };
  return (
    typeof error === 'string' && (typeof code === 'string' || (!codeRequired && code === undefined))
  );
}

/** A JSON-RPC error object: what an MCP server answers a malformed message with. */
function isJsonRpcError(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { jsonrpc, error } = body as {
    jsonrpc?: unknown;
    error?: { code?: unknown; message?: unknown };
  };
  return jsonrpc === '2.0' && typeof error?.code === 'number' && typeof error.message === 'string';
}

/** Refusals the gateway makes before a service sees the request. */
const EDGE_CODES = new Set([
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'SESSION_EXPIRED',
  'ROUTE_NOT_FOUND',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'HEADERS_TOO_LARGE',
]);

/**
 * An answer a service gave: a success, a refusal only the owner of the data can make, or a
 * JSON-RPC error, which only the MCP endpoint behind the gateway speaks.
 */
function pastTheGateway(answer: FuzzAnswer): boolean {
  if (answer.status < 400) return true;
  const body = parsed(answer.text);
  if (isJsonRpcError(body)) return true;
  const code = (body as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && !EDGE_CODES.has(code);
}

/** Each route's own seed, from its name: a route added to the table leaves the others' alone. */
function seedOf(operationId: string): number {
  let hash = SEED;
  for (const char of operationId) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

const MODEL_MISSING = 'MODEL_NOT_CONFIGURED';

/** What is wrong with an answer, or undefined when it is what any answer must be. */
function defectOf(
  route: FuzzedRoute,
  request: FuzzRequest,
  answer: FuzzAnswer,
): string | undefined {
  // The deployment has no language model: running a workflow that asks one is refused as a
  // chat turn is (decision 127), whatever the request. Any other 5xx is a defect.
  if (answer.status === 503 && (parsed(answer.text) as { code?: unknown })?.code === MODEL_MISSING)
    return undefined;
  if (answer.status >= 500) return `answered ${answer.status}`;
  if (leaksInternals(answer.text)) return 'a stack or a source path in the body';
  if (answer.status < 400) return undefined;
  const body = parsed(answer.text);
  // The spec's Custom Webhook refusals carry no code (`{"error": "Webhook not found"}`).
  const codeRequired = !route.path.startsWith('/webhooks/');
  if (isErrorBody(body, codeRequired)) return undefined;
  // The MCP transport refuses a malformed message of a keyed caller as JSON-RPC does.
  if (route.path === '/mcp' && request.caller === 'api_key' && isJsonRpcError(body))
    return undefined;
  return `a ${answer.status} that is not an Error body`;
}

describe('generated bad input to every route on the embedded runtime', () => {
  let stack: TestStack;
  let world: FuzzWorld;
  let owner: Person & { workspaceId: string };
  const ownerEmail = uniqueEmail('fuzz-owner');
  let sent = 0;
  /** Per route, how many answers came from past the gateway's own checks. */
  const reachedService = new Map<string, number>();

  /** A workspace with one of everything the routes name, for the ids requests mix in. */
  async function furnish(
    who: Person,
    label: string,
  ): Promise<{
    workspaceId: string;
    ids: string[];
    byResource: Record<string, string[]>;
    files: string[];
    apiKey: string;
  }> {
    const workspaceId = await createWorkspace(stack, who, `${label} workspace`);
    const post = async (path: string, body: unknown) => {
      const answer = await http(`${stack.url}${path}`, {
        method: 'POST',
        cookie: who.cookie,
        body,
      });
      if (answer.status >= 300)
        throw new Error(`POST ${path} answered ${answer.status}: ${answer.text}`);
      return answer.body;
    };
    const workflow = await post('/workflows', {
      workspaceId,
      name: `${label} flow`,
      trigger: { type: 'custom_webhook' },
      steps: [{ type: 'delay', settings: { seconds: 0 } }],
    });
    const table = await post('/tables', { workspaceId, name: `${label} table` });
    const contact = await post('/contacts', { workspaceId, name: 'Ada Lovelace' });
    const task = (await post('/tasks', { workspaceId, title: 'Ship it' })) as {
      task: { id: string };
    };
    const conversation = (await post('/ai-chat/conversations', {
      workspaceId,
      title: 'Hello',
    })) as {
      conversation: { id: string };
    };
    const message = await post(`/ai-chat/conversations/${conversation.conversation.id}/messages`, {
      content: 'Hi',
    });
    const key = (await post(`/workspaces/${workspaceId}/api-keys`, { name: 'fuzz' })) as {
      key: string;
    };
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('fuzz notes')], { type: 'text/plain' }), 'notes.txt');
    form.append('workspaceId', workspaceId);
    const uploaded = await fetch(`${stack.url}/tasks/${task.task.id}/comments/attachments`, {
      method: 'POST',
      headers: { cookie: who.cookie },
      body: form,
    });
    if (uploaded.status !== 200) throw new Error(`uploading answered ${uploaded.status}`);
    const attachment = (await uploaded.json()) as { url: string };
    const me = await http(`${stack.url}/me`, { cookie: who.cookie });
    return {
      workspaceId,
      ids: [
        ...new Set(
          [workflow, table, contact, task, conversation, message, attachment, me.body].flatMap(
            idsIn,
          ),
        ),
      ],
      byResource: {
        workspaces: [workspaceId],
        workflows: idsIn(workflow),
        webhooks: idsIn(workflow),
        tables: idsIn(table),
        contacts: idsIn(contact),
        tasks: [task.task.id],
        workspaceId: [workspaceId],
        taskId: [task.task.id],
        name: [attachment.url.split('/').pop() ?? 'notes.txt'],
        // A workflow's version numbers (every workflow has version 1).
        number: ['1', '2'],
        'ai-chat': idsIn(conversation),
        brain: idsIn(message),
      },
      files: [attachment.url.split('/').pop() ?? 'notes.txt'],
      apiKey: key.key,
    };
  }

  beforeAll(async () => {
    stack = await startStack('embedded', {
      config: { devSignIn: true },
      services: {
        webhookIngest: {
          ...DEFAULT_WEBHOOK_INGEST_CONFIG,
          // Generated requests would otherwise mostly meet the per-address limit.
          rateLimit: { perSecond: 100_000, burst: 100_000 },
          secrets: SECRETS,
        },
      },
    });
    const ownerPerson = await signedInPerson(stack, 'fuzz-owner', ownerEmail);
    const stranger = await signedInPerson(stack, 'fuzz-stranger');
    const own = await furnish(ownerPerson, 'own');
    const foreign = await furnish(stranger, 'foreign');
    owner = { ...ownerPerson, workspaceId: own.workspaceId };
    world = {
      url: stack.url,
      ownerCookie: ownerPerson.cookie,
      strangerCookie: stranger.cookie,
      apiKey: own.apiKey,
      ownIds: own.ids,
      ownIdsByResource: own.byResource,
      foreignIds: foreign.ids,
      fileNames: [...own.files, ...foreign.files],
      secrets: SECRETS,
    };
  }, 180_000);
  afterAll(async () => {
    await stack.stop();
  });

  test.each(FUZZED.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no 5xx, no stack, every refusal an Error body',
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(requestsFor(route, world), async (request) => {
          const answer = await send(world, request);
          sent += 1;
          if (pastTheGateway(answer)) {
            reachedService.set(route.operationId, (reachedService.get(route.operationId) ?? 0) + 1);
          }
          const defect = defectOf(route, request, answer);
          if (defect) throw new Error(`${defect}: ${answer.text.slice(0, 500)}`);
        }),
        { seed: seedOf(route.operationId), numRuns: RUNS_PER_ROUTE },
      );
      expect((await http(`${stack.url}/healthz`)).status).toBe(200);
    },
  );

  test('afterwards the platform answers normal reads and writes, after more than 10,000 requests', async () => {
    expect(sent).toBeGreaterThanOrEqual(10_000);
    // Requests that all stop at the edge would leave the services unfuzzed.
    expect(
      ROUTES.map((route) => route.operationId).filter((id) => !reachedService.get(id)),
    ).toEqual([]);
    // The generated sign-outs ended every session of the owner, up to the second after the last.
    const signedOut = await http(`${stack.url}/me`, { cookie: owner.cookie });
    expect(signedOut.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    owner = {
      ...(await signedInPerson(stack, 'fuzz-owner', ownerEmail)),
      workspaceId: owner.workspaceId,
    };
    const workspaceId = await createWorkspace(stack, owner, 'after the fuzz');
    const created = await http(`${stack.url}/contacts`, {
      method: 'POST',
      cookie: owner.cookie,
      body: { workspaceId, name: 'Grace Hopper' },
    });
    expect(created.status).toBe(201);
    const contactId = (created.body as { contact: { id: string } }).contact.id;
    const read = await http(`${stack.url}/contacts/${contactId}`, { cookie: owner.cookie });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ contact: { id: contactId, name: 'Grace Hopper' } });
    const me = await http(`${stack.url}/me`, { cookie: owner.cookie });
    expect(me.status).toBe(200);
  });
});
