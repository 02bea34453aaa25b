import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { mintSessionToken } from '@wap/auth';
import {
  REQUEST_SUBJECTS,
  ROUTES,
  routeSubjects,
  type BusPrincipal,
  type RouteSpec,
} from '@wap/contracts';
import type { Platform } from '@wap/platform';
import {
  asBusPrincipal,
  createOpenApiConformance,
  startTestRuntime,
  type OpenApiConformance,
  testBusKeys,
  testLogger,
  type RuntimeKind,
} from '@wap/testing';
import { startGateway, type GatewayConfig, type GatewayHandle } from '@wap/gateway-service';
import { startAllServices, type RunningServices, type ServiceOptions } from '../compose';

export type Runtime = RuntimeKind;
export const RUNTIMES: Runtime[] = ['embedded', 'distributed'];
export const SESSION_SECRET = 'e2e-session-secret-that-is-long-enough-0123456789';
/** What the stack's storage signs extension tokens with (a spec forges with it, or with others). */
export const EXTENSION_TOKEN_ISSUER = {
  secret: 'e2e-extension-token-secret-long-enough-9876543210',
  issuer: 'wap-e2e',
};

export interface TestStack {
  platform: Platform;
  gateway: GatewayHandle;
  services: RunningServices;
  logger: Logger;
  url: string;
  /** NATS_NAMESPACE for a process joining the distributed runtime's stack; none when embedded. */
  natsNamespace?: string;
  /**
   * The stack's platform as one principal sees it, for a spec that asks or serves on the bus
   * itself; the registry includes the stack's extra test routes.
   */
  as(principal: BusPrincipal): Promise<Platform>;
  /** A session cookie header for a (new) user with this email. */
  cookieFor(email: string, options?: { platformAdmin?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

/** Every service and the gateway on one platform of the given runtime, as `npm start` runs them. */
export async function startStack(
  runtime: Runtime,
  options: {
    config?: Partial<GatewayConfig>;
    routes?: readonly RouteSpec[];
    services?: ServiceOptions;
  } = {},
): Promise<TestStack> {
  const logger = testLogger();
  const { platform, cleanup, natsNamespace } = await startTestRuntime(runtime, {
    serviceName: 'wap-e2e',
    logger,
  });
  const busKeys = testBusKeys();
  const services = await startAllServices(platform, busKeys, () => logger, {
    ...options.services,
    storage: { extensionTokenIssuer: EXTENSION_TOKEN_ISSUER, ...options.services?.storage },
  });
  const registered = new Set(REQUEST_SUBJECTS.map((spec) => spec.subject));
  const subjects = [
    ...REQUEST_SUBJECTS,
    ...(options.routes ?? [])
      .filter((route) => !registered.has(route.subject))
      .flatMap((route) => routeSubjects(route)),
  ];
  const as = (principal: BusPrincipal) => asBusPrincipal(platform, principal, { logger, subjects });
  const gateway = await startGateway({
    platform: await as('gateway'),
    logger,
    isReady: () => platform.isReady(),
    routes: options.routes ?? ROUTES,
    config: {
      production: false,
      port: 0,
      host: '127.0.0.1',
      session: { mode: 'secret', secret: SESSION_SECRET },
      requestTimeoutMs: 3000,
      bodyLimitBytes: 64 * 1024,
      trustProxyHops: 0,
      sessionCookieSecure: true,
      devSignIn: false,
      ...options.config,
    },
  });
  return {
    platform,
    gateway,
    services,
    logger,
    url: gateway.url,
    natsNamespace,
    as,
    cookieFor: async (email, cookieOptions = {}) =>
      `session=${await mintSessionToken({
        secret: SESSION_SECRET,
        sub: `test|${email}`,
        email,
        name: email.split('@')[0] ?? email,
        platformAdmin: cookieOptions.platformAdmin,
      })}`,
    stop: async () => {
      await gateway.stop();
      await services.stop();
      await cleanup();
    },
  };
}

/** A unique email per test, so tests own their users. */
export function uniqueEmail(label: string): string {
  return `${label}-${randomBytes(4).toString('hex')}@example.com`;
}

/** A signed-in user with a session cookie and a new workspace they own. */
export interface WorkspaceOwner {
  cookie: string;
  workspaceId: string;
}

/** A signed-in user: their session cookie and their user id. */
export interface Person {
  cookie: string;
  userId: string;
}

/** Signs a user in (a new one unless `email` is known) and reads their id from `GET /me`. */
export async function signedInPerson(
  stack: TestStack,
  label: string,
  email = uniqueEmail(label),
): Promise<Person> {
  const cookie = await stack.cookieFor(email);
  const me = await http(`${stack.url}/me`, { cookie });
  if (me.status !== 200) throw new Error(`GET /me answered ${me.status}`);
  return { cookie, userId: (me.body as { user: { id: string } }).user.id };
}

/** Has `who` create a workspace through the gateway and answers its id. */
export async function createWorkspace(
  stack: TestStack,
  who: Person,
  name: string,
): Promise<string> {
  const created = await http(`${stack.url}/workspaces`, {
    method: 'POST',
    cookie: who.cookie,
    body: { name },
  });
  if (created.status !== 201) throw new Error(`creating a workspace answered ${created.status}`);
  return (created.body as { workspace: { id: string } }).workspace.id;
}

/** Signs a new user in and has them create a workspace, through the gateway. */
export async function newWorkspaceOwner(stack: TestStack, label: string): Promise<WorkspaceOwner> {
  const cookie = await stack.cookieFor(uniqueEmail(label));
  const created = await http(`${stack.url}/workspaces`, {
    method: 'POST',
    cookie,
    body: { name: `${label} workspace` },
  });
  if (created.status !== 201) throw new Error(`creating a workspace answered ${created.status}`);
  return { cookie, workspaceId: (created.body as { workspace: { id: string } }).workspace.id };
}

/**
 * A new user in a workspace of their own that a platform admin granted `credits`: what a test
 * of paid steps starts from.
 */
export async function fundedWorkspace(
  stack: TestStack,
  label: string,
  credits: number,
): Promise<{ owner: Person; workspaceId: string }> {
  const owner = await signedInPerson(stack, label);
  const workspaceId = await createWorkspace(stack, owner, `${label} workspace`);
  const admin = await stack.cookieFor(uniqueEmail(`${label}-admin`), { platformAdmin: true });
  const granted = await http(`${stack.url}/workspaces/${workspaceId}/credits/grants`, {
    method: 'POST',
    cookie: admin,
    body: { amount: credits, reason: 'e2e' },
  });
  if (granted.status !== 201) throw new Error(`granting credits answered ${granted.status}`);
  return { owner, workspaceId };
}

/** Signs a new user in and has `owner` add them to the workspace with `role`. */
export async function addWorkspaceMember(
  stack: TestStack,
  owner: WorkspaceOwner,
  label: string,
  role: 'owner' | 'member' = 'member',
): Promise<Person> {
  const email = uniqueEmail(label);
  const person = await signedInPerson(stack, label, email);
  const added = await http(`${stack.url}/workspaces/${owner.workspaceId}/members`, {
    method: 'POST',
    cookie: owner.cookie,
    body: { email, role },
  });
  if (added.status !== 201) throw new Error(`adding a member answered ${added.status}`);
  return person;
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

export async function http(
  url: string,
  options: {
    method?: string;
    cookie?: string;
    body?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers['cookie'] = options.cookie;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(url, {
    method: options.method ?? 'GET',
    headers,
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  const requested = new URL(url);
  const problems = (await conformanceOf(requested.origin))({
    method: options.method ?? 'GET',
    path: requested.pathname,
    status: response.status,
    contentType: response.headers.get('content-type'),
    text,
  });
  if (problems.length > 0) {
    throw new Error(`the answer disagrees with /openapi.json:\n${problems.join('\n')}\n${text}`);
  }
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

const conformanceByOrigin = new Map<string, Promise<OpenApiConformance>>();

/**
 * Every answer `http` reads is checked against the document the same gateway serves (issue
 * 30): a status, media type or body the document does not declare fails the test that met it.
 */
function conformanceOf(origin: string): Promise<OpenApiConformance> {
  let conformance = conformanceByOrigin.get(origin);
  if (!conformance) {
    conformance = fetch(`${origin}/openapi.json`)
      .then(async (answer) => {
        // webhook-ingest's own door serves no document: its answers are those of the gateway's
        // webhook routes, which the gateway's document checks.
        if (answer.status === 404) return () => [];
        if (answer.status !== 200) throw new Error(`/openapi.json answered ${answer.status}`);
        return createOpenApiConformance((await answer.json()) as Record<string, unknown>);
      })
      .catch((error: unknown) => {
        conformanceByOrigin.delete(origin);
        throw error;
      });
    conformanceByOrigin.set(origin, conformance);
  }
  return conformance;
}
