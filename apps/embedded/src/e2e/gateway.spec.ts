import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { defineRoutes, ForwardedRequest, type RouteSpec } from '@wap/contracts';
import { serveApi } from '@wap/bus-protocol';
import { repositoryRoot } from '@wap/testing';
import { http, RUNTIMES, SESSION_SECRET, startStack, uniqueEmail, type TestStack } from './stack';

const execFileAsync = promisify(execFile);

describe.each(RUNTIMES)('gateway on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime, { config: { devSignIn: true } });
  });
  afterAll(async () => {
    await stack.stop();
  });

  test('health and readiness answer', async () => {
    expect((await http(`${stack.url}/healthz`)).status).toBe(200);
    expect((await http(`${stack.url}/readyz`)).body).toEqual({ status: 'ready' });
  });

  test('/openapi.json is generated from the route table', async () => {
    const { status, body } = await http(`${stack.url}/openapi.json`);
    expect(status).toBe(200);
    const document = body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(document.openapi).toBe('3.1.0');
    expect(
      Object.keys(document.paths['/workspaces/{workspaceId}/notification-settings'] ?? {}).sort(),
    ).toEqual(['get', 'patch']);
    expect(document.paths['/me']?.['get']).toMatchObject({ operationId: 'get_me' });
    expect(document.paths['/tasks/{taskId}/comments/attachments']?.['post']).toMatchObject({
      operationId: 'upload_task_comment_attachment',
      requestBody: {
        content: {
          'multipart/form-data': {
            schema: { required: ['file'], properties: { file: { format: 'binary' } } },
          },
        },
      },
    });
  });

  test('a first session creates the user; GET /me and POST /workspaces work', async () => {
    const email = uniqueEmail('first');
    const cookie = await stack.cookieFor(email);
    const me = await http(`${stack.url}/me`, { cookie });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { email }, workspaces: [] });
    expect(me.headers.get('x-request-id')).toBeTruthy();

    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'Acme' },
    });
    expect(created.status).toBe(201);
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    const again = await http(`${stack.url}/me`, { cookie });
    expect(again.body).toMatchObject({
      workspaces: [{ id: workspaceId, name: 'Acme', role: 'owner' }],
    });
  });

  describe('401 on session routes', () => {
    test('no cookie → UNAUTHORIZED', async () => {
      const { status, body } = await http(`${stack.url}/me`);
      expect(status).toBe(401);
      expect(body).toEqual({ error: expect.any(String), code: 'UNAUTHORIZED' });
    });

    test.each([
      ['an API key in the cookie', 'session=sk_live_x'],
      ['a malformed token', 'session=not-a-jwt'],
      ['an empty cookie', 'session='],
    ])('%s → UNAUTHORIZED', async (_label, cookie) => {
      const { status, body } = await http(`${stack.url}/me`, { cookie });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'UNAUTHORIZED' });
    });

    test('a token signed with another secret → UNAUTHORIZED', async () => {
      const forged = await new SignJWT({ email: 'x@example.com', name: 'x' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('forged')
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode('another-secret-that-is-long-enough-0123456789'));
      const { status, body } = await http(`${stack.url}/me`, { cookie: `session=${forged}` });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'UNAUTHORIZED' });
    });

    test('an expired session → SESSION_EXPIRED', async () => {
      const nowSec = Math.floor(Date.now() / 1000);
      const expired = await new SignJWT({ email: 'old@example.com', name: 'old' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('test|old@example.com')
        .setIssuedAt(nowSec - 7200)
        .setExpirationTime(nowSec - 3600)
        .sign(new TextEncoder().encode(SESSION_SECRET));
      const { status, body } = await http(`${stack.url}/me`, { cookie: `session=${expired}` });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'SESSION_EXPIRED' });
    });

    test('a workspace API key in the Authorization header → UNAUTHORIZED, even beside a valid cookie', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('bearer'));
      const { status, body } = await http(`${stack.url}/me`, {
        cookie,
        headers: { authorization: 'Bearer sk_live_abc' },
      });
      expect(status).toBe(401);
      expect(body).toMatchObject({ code: 'UNAUTHORIZED' });
    });
  });

  describe('Error bodies at the edge', () => {
    test('a body that fails the schema → 400 VALIDATION_ERROR with details', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('validation'));
      const { status, body } = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 42 },
      });
      expect(status).toBe(400);
      expect(body).toMatchObject({
        code: 'VALIDATION_ERROR',
        details: [expect.objectContaining({ path: 'body.name' })],
      });
    });

    test('a string no database can store (a NUL) → 400 VALIDATION_ERROR, not a 500', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('nul'));
      const { status, body } = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'Acme\u0000' },
      });
      expect(status).toBe(400);
      expect(body).toEqual({
        code: 'VALIDATION_ERROR',
        error: 'Strings may not contain NUL characters or unpaired surrogates',
      });
      // The same body in UTF-16: its escape's bytes are not side by side.
      const wide = await fetch(`${stack.url}/workspaces`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json; charset=utf-16le' },
        body: Buffer.from(JSON.stringify({ name: 'Acme\u0000' }), 'utf16le'),
      });
      expect(wide.status).toBe(400);
      expect(await wide.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    test('a bad path parameter → 400 VALIDATION_ERROR', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('params'));
      const { status, body } = await http(
        `${stack.url}/workspaces/not-a-uuid/notification-settings`,
        {
          cookie,
        },
      );
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    test('malformed JSON → 400 INVALID_JSON', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('json'));
      const { status, body } = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: '{"name": ',
      });
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 'INVALID_JSON' });
    });

    test('a non-JSON content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('media'));
      const { status, body } = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: 'name=Acme',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(status).toBe(415);
      expect(body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    });

    test('a body over the limit → 413 PAYLOAD_TOO_LARGE', async () => {
      const cookie = await stack.cookieFor(uniqueEmail('large'));
      const { status, body } = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'x'.repeat(100 * 1024) },
      });
      expect(status).toBe(413);
      expect(body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    });

    test('an unknown route → 404 with an Error body', async () => {
      const { status, body } = await http(`${stack.url}/no/such/route`);
      expect(status).toBe(404);
      expect(body).toEqual({ error: 'Not found', code: 'ROUTE_NOT_FOUND' });
    });
  });

  describe('development sign-in', () => {
    test('sets an HttpOnly, Secure, SameSite=Lax session cookie and redirects to /', async () => {
      const email = uniqueEmail('dev');
      const response = await http(
        `${stack.url}/dev/sign-in?email=${encodeURIComponent(email)}&name=Dev`,
      );
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/');
      const setCookie = response.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/^session=[^;]+; /);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('Secure');
      expect(setCookie).toContain('SameSite=Lax');
      const cookie = setCookie.split(';')[0] ?? '';
      const me = await http(`${stack.url}/me`, { cookie });
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user: { email, name: 'Dev' } });
    });

    test('rejects a bad email with 400', async () => {
      const { status, body } = await http(`${stack.url}/dev/sign-in?email=nope`);
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 'VALIDATION_ERROR' });
    });

    test('npm run dev:session mints a cookie for curl; with --admin, one that may grant credits', async () => {
      const devSession = async (...args: string[]) => {
        const { stdout } = await execFileAsync(
          process.execPath,
          ['--import', 'tsx', join(repositoryRoot, 'tools/dev-session.ts'), ...args],
          {
            cwd: repositoryRoot,
            env: {
              PATH: process.env['PATH'],
              SESSION_JWT_SECRET: secret,
              DEV_SIGN_IN: 'on',
              BASE_URL: stack.url,
            },
          },
        );
        return stdout.trim();
      };
      let secret = 'a-secret-this-server-does-not-have-0123456789';
      // A cookie the server would refuse fails loudly, naming the likely cause.
      await expect(devSession(uniqueEmail('curl'))).rejects.toThrow(
        /refuses this session: DATA_DIR .* or SESSION_JWT_SECRET differs/,
      );
      secret = SESSION_SECRET;
      const cookie = await devSession(uniqueEmail('curl'));
      const created = await http(`${stack.url}/workspaces`, {
        method: 'POST',
        cookie,
        body: { name: 'Curl' },
      });
      expect(created.status).toBe(201);
      const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
      const grant = { method: 'POST', body: { amount: 5, reason: 'trying it out' } };
      const grants = `${stack.url}/workspaces/${workspaceId}/credits/grants`;
      expect((await http(grants, { ...grant, cookie })).status).toBe(403);
      const admin = await devSession(uniqueEmail('admin'), '--admin');
      expect((await http(grants, { ...grant, cookie: admin })).status).toBe(201);
    });
  });

  test('CORS: the configured origin gets credentials, others nothing', async () => {
    const cors = await startStack(runtime, { config: { webOrigin: 'https://app.example.com' } });
    try {
      const preflight = await http(`${cors.url}/workspaces`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example.com',
          'access-control-request-method': 'POST',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      const other = await http(`${cors.url}/healthz`, {
        headers: { origin: 'https://evil.example' },
      });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await cors.stop();
    }
  });
});

describe('gateway edge cases on the embedded runtime', () => {
  test('without DEV_SIGN_IN=on there is no development sign-in', async () => {
    const stack = await startStack('embedded');
    try {
      const { status, body } = await http(`${stack.url}/dev/sign-in?email=a@example.com`);
      expect(status).toBe(404);
      expect(body).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    } finally {
      await stack.stop();
    }
  });

  test('an unexpected failure in a service → 500 with a generic Error body and no stack', async () => {
    const failingRoute = defineRoutes([
      {
        operationId: 'explode',
        summary: 'test route whose handler throws a programming error',
        method: 'GET',
        path: '/test/explode',
        owner: 'storage',
        subject: 'test.api.explode.v1',
        auth: 'none',
        bodyKind: 'none',
        responses: {},
      },
    ] as const) satisfies readonly RouteSpec[];
    const stack = await startStack('embedded', { routes: failingRoute });
    const subscription = serveApi(
      (await stack.as('storage')).bus,
      { subject: 'test.api.explode.v1', request: ForwardedRequest, reply: z.unknown() },
      async () => {
        throw new TypeError('secret internal detail at line 42');
      },
      { queue: 'test', logger: stack.logger },
    );
    try {
      const { status, body, text } = await http(`${stack.url}/test/explode`);
      expect(status).toBe(500);
      expect(body).toEqual({ error: 'Internal server error', code: 'INTERNAL_ERROR' });
      expect(text).not.toContain('secret internal detail');
    } finally {
      await subscription.unsubscribe();
      await stack.stop();
    }
  });

  test('a service that does not answer → 503 SERVICE_UNAVAILABLE within the timeout, then recovers', async () => {
    const slowRoute = defineRoutes([
      {
        operationId: 'slow',
        summary: 'test route served by a handler that can be made slow',
        method: 'GET',
        path: '/test/slow',
        owner: 'storage',
        subject: 'test.api.slow.v1',
        auth: 'none',
        bodyKind: 'none',
        responses: { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } },
      },
    ] as const) satisfies readonly RouteSpec[];
    const stack = await startStack('embedded', {
      routes: slowRoute,
      config: { requestTimeoutMs: 300 },
    });
    let delayMs = 2000;
    const subscription = serveApi(
      (await stack.as('storage')).bus,
      { subject: 'test.api.slow.v1', request: ForwardedRequest, reply: z.unknown() },
      async () => {
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return { status: 200, body: { ok: true } };
      },
      { queue: 'test', logger: stack.logger },
    );
    try {
      const started = Date.now();
      const slow = await http(`${stack.url}/test/slow`);
      expect(slow.status).toBe(503);
      expect(slow.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(delayMs);
      delayMs = 0;
      const fast = await http(`${stack.url}/test/slow`);
      expect(fast.status).toBe(200);
      expect(fast.body).toEqual({ ok: true });
    } finally {
      await subscription.unsubscribe();
      await stack.stop();
    }
  });
});
