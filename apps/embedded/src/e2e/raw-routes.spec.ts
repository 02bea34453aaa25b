import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ROUTES, defineRoutes, type RawServiceRequest, type RouteSpec } from '@wap/contracts';
import { serveRoutes } from '@wap/bus-protocol';
import { http, RUNTIMES, startStack, uniqueEmail, type TestStack } from './stack';

const testRoutes = defineRoutes([
  {
    operationId: 'raw_echo',
    summary: 'test route: describes the raw request it received',
    method: 'POST',
    path: '/test/raw/:name',
    owner: 'webhook-ingest',
    subject: 'test.api.raw_echo.v1',
    auth: 'none',
    bodyKind: 'raw',
    bodyLimitBytes: 2 * 1024 * 1024,
    responses: { 200: { description: 'what arrived', contentType: 'application/json' } },
  },
  {
    operationId: 'key_echo',
    summary: 'test route: answers with the API key principal',
    method: 'POST',
    path: '/test/key',
    owner: 'webhook-ingest',
    subject: 'test.api.key_echo.v1',
    auth: 'api_key',
    bodyKind: 'raw',
    responses: { 200: { description: 'the principal', contentType: 'application/json' } },
  },
] as const) satisfies readonly RouteSpec[];

const WEB_ORIGIN = 'https://app.example.com';

function describeRequest(request: RawServiceRequest) {
  return {
    name: request.params['name'],
    method: request.method,
    protocol: request.protocol,
    remoteAddress: request.remoteAddress,
    query: request.query,
    headers: request.headers,
    size: request.body.length,
    sha256: createHash('sha256').update(request.body).digest('hex'),
    apiKey: request.apiKey,
  };
}

describe.each(RUNTIMES)('raw routes through the gateway on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime, {
      routes: [...ROUTES, ...testRoutes],
      config: { trustProxyHops: 1, webOrigin: WEB_ORIGIN },
    });
    serveRoutes(
      (await stack.as('webhook-ingest')).bus,
      testRoutes,
      'webhook-ingest',
      {
        raw_echo: async (request) => ({ status: 200, body: describeRequest(request) }),
        key_echo: async (request) => ({ status: 200, body: describeRequest(request) }),
      },
      { queue: 'test', logger: stack.logger, objects: stack.platform.objects },
    );
  });
  afterAll(async () => {
    await stack.stop();
  });

  test.each([
    ['a small body inline', 1000],
    ['a body too large for one bus message, through the object store', 1536 * 1024],
  ])('%s arrives byte for byte, without credentials in its headers', async (_label, size) => {
    const body = Buffer.alloc(size, 7);
    body.write('{"not": "parsed by the gateway"');
    const response = await fetch(`${stack.url}/test/raw/hook?x=1`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'text/plain',
        cookie: 'session=secret',
        authorization: 'Bearer secret',
        'x-idempotency-key': 'abc',
      },
    });
    expect(response.status).toBe(200);
    const received = (await response.json()) as ReturnType<typeof describeRequest>;
    expect(received).toMatchObject({
      name: 'hook',
      method: 'POST',
      protocol: 'http',
      size,
      sha256: createHash('sha256').update(body).digest('hex'),
      apiKey: null,
    });
    expect(received.headers['x-idempotency-key']).toBe('abc');
    expect(received.headers['cookie']).toBeUndefined();
    expect(received.headers['authorization']).toBeUndefined();
  });

  test('a raw body over the route limit is 413', async () => {
    const response = await http(`${stack.url}/test/raw/hook`, {
      method: 'POST',
      body: 'x'.repeat(2 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  test('a raw body over the route limit sent in chunks, with no length, is 413', async () => {
    const chunk = Buffer.alloc(256 * 1024, 1);
    let sent = 0;
    const response = await fetch(`${stack.url}/test/raw/hook`, {
      method: 'POST',
      body: new ReadableStream({
        pull(controller) {
          if (sent >= 3 * 1024 * 1024) controller.close();
          else controller.enqueue(chunk);
          sent += chunk.length;
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: 'Request body is too large',
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  test('path parameters are decoded, matched without case and with a trailing slash, the query kept', async () => {
    const response = await http(`${stack.url}/TEST/raw/a%20b%2Fc/?x=1&x=2&y=z`, {
      method: 'POST',
      body: '{}',
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'a b/c', query: { x: ['1', '2'], y: 'z' } });
  });

  test('a compressed raw body arrives inflated', async () => {
    const body = Buffer.from('{"compressed": true}');
    const response = await fetch(`${stack.url}/test/raw/zipped`, {
      method: 'POST',
      body: gzipSync(body),
      headers: { 'content-encoding': 'gzip', 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      name: 'zipped',
      sha256: createHash('sha256').update(body).digest('hex'),
    });
  });

  test('the request id, the trusted proxy headers and CORS for the web origin', async () => {
    const response = await http(`${stack.url}/test/raw/proxied`, {
      method: 'POST',
      body: '{}',
      headers: {
        'x-request-id': 'sender-id-1',
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '203.0.113.9, 198.51.100.7',
        origin: WEB_ORIGIN,
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('sender-id-1');
    expect(response.headers.get('access-control-allow-origin')).toBe(WEB_ORIGIN);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.body).toMatchObject({ protocol: 'https', remoteAddress: '198.51.100.7' });

    const other = await http(`${stack.url}/test/raw/proxied`, {
      method: 'POST',
      body: '{}',
      headers: { 'x-request-id': 'not a sane id', origin: 'https://elsewhere.example.com' },
    });
    expect(other.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.body).toMatchObject({ protocol: 'http' });
  });

  test('api_key routes take a workspace key and refuse anything else with 401', async () => {
    const cookie = await stack.cookieFor(uniqueEmail('keys'));
    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie,
      body: { name: 'K' },
    });
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    const key = await http(`${stack.url}/workspaces/${workspaceId}/api-keys`, {
      method: 'POST',
      cookie,
      body: { name: 'mcp' },
    });
    expect(key.status).toBe(201);
    const { key: apiKey, id: keyId } = key.body as { key: string; id: string };

    const accepted = await http(`${stack.url}/test/key`, {
      method: 'POST',
      body: '{}',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ apiKey: { workspaceId, keyId } });

    for (const authorization of [undefined, 'Bearer sk_live_wrongwrongwrong', `Basic ${apiKey}`]) {
      const refused = await http(`${stack.url}/test/key`, {
        method: 'POST',
        body: '{}',
        headers: authorization ? { authorization } : {},
      });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const withCookie = await http(`${stack.url}/test/key`, { method: 'POST', body: '{}', cookie });
    expect(withCookie.status).toBe(401);

    const keyOnRest = await http(`${stack.url}/me`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(keyOnRest.status).toBe(401);
    expect(keyOnRest.body).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});
