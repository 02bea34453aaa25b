import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import pino from 'pino';
import type { RouteSpec } from '@wap/contracts';
import { createHttpEdge, type EdgeRoute } from './http-edge';
import { createRequestSiteCheck } from './request-site';

const TRUSTED_ORIGIN = 'https://platform.example.com';

function route(overrides: Partial<RouteSpec> & Pick<RouteSpec, 'method' | 'path'>): RouteSpec {
  return {
    operationId: `${overrides.method} ${overrides.path}`,
    summary: 'test route',
    owner: 'storage',
    subject: 'storage.api.test.v1',
    auth: 'none',
    bodyKind: 'none',
    responses: {},
    ...overrides,
  };
}

/** Every route answers with what it saw, so each test reads what the edge handed on. */
const ROUTES: EdgeRoute[] = [
  {
    route: route({ method: 'GET', path: '/items/:itemId' }),
    handle: async (request) => ({
      status: 200,
      body: { params: request.params, query: request.query(), protocol: request.protocol },
    }),
  },
  {
    route: route({ method: 'POST', path: '/items', bodyKind: 'json', auth: 'session' }),
    handle: async (request) => ({ status: 201, body: { received: (await request.json())?.value } }),
  },
  {
    route: route({ method: 'POST', path: '/items/:itemId/archive', auth: 'session' }),
    handle: async () => ({ status: 204 }),
  },
  {
    route: route({ method: 'POST', path: '/hooks/:hookId', bodyKind: 'raw', bodyLimitBytes: 64 }),
    handle: async (request) => ({
      status: 200,
      body: { bytes: (await request.body()).length },
    }),
  },
];

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

describe('the HTTP edge', () => {
  let server: Server;
  let base: string;
  const logged: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });

  beforeAll(async () => {
    const serve = createHttpEdge({
      routes: ROUTES,
      logger,
      trustProxyHops: 0,
      bodyLimitBytes: 4096,
      corsOrigin: TRUSTED_ORIGIN,
      isFromTrustedSite: createRequestSiteCheck([TRUSTED_ORIGIN]),
      unmatched: 'not_found',
    });
    server = createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** node:http, not fetch: fetch would normalise the path and refuse some headers. */
  function send(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: Buffer | string } = {},
  ): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${base}${path}`, { method, headers: options.headers });
      outgoing.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
  }
  const json = (answer: Answer): unknown => JSON.parse(answer.text);

  test('matches as Express does: any case, a trailing slash, decoded parameters, HEAD as GET', async () => {
    const answer = await send('GET', '/ITEMS/a%20b/?x=1&x=2&y=3');
    expect(answer.status).toBe(200);
    expect(json(answer)).toEqual({
      params: { itemId: 'a b' },
      query: { x: ['1', '2'], y: '3' },
      protocol: 'http',
    });
    expect(answer.headers['x-request-id']).toEqual(expect.any(String));
    const head = await send('HEAD', '/items/1');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  test('a malformed escape is a 400 that does not echo the path; no route is a 404', async () => {
    const malformed = await send('GET', '/items/%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(json(malformed)).toEqual({
      error: 'The path has a malformed percent-encoding',
      code: 'BAD_REQUEST',
    });
    const unmatched = await send('PUT', '/items/1');
    expect(unmatched.status).toBe(404);
    expect(json(unmatched)).toEqual({ error: 'Not found', code: 'ROUTE_NOT_FOUND' });
  });

  test('JSON routes take JSON or nothing: another type is 415, body-less POSTs included', async () => {
    const form = await send('POST', '/items', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    expect(form.status).toBe(415);
    const bodyless = await send('POST', '/items/1/archive', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(bodyless.status).toBe(415);
    const untyped = await send('POST', '/items', { body: '{"a":1}' });
    expect(untyped.status).toBe(415);
    const served = await send('POST', '/items', {
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect({ status: served.status, body: json(served) }).toEqual({
      status: 201,
      body: { received: { a: 1 } },
    });
  });

  test('JSON is read in UTF-16 too; an unknown charset is 415; broken JSON is 400', async () => {
    const wide = await send('POST', '/items', {
      headers: { 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from('{"name":"ü"}', 'utf16le'),
    });
    expect(json(wide)).toEqual({ received: { name: 'ü' } });
    const latin = await send('POST', '/items', {
      headers: { 'content-type': 'application/json; charset=iso-8859-1' },
      body: '{}',
    });
    expect(latin.status).toBe(415);
    const broken = await send('POST', '/items', {
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    });
    expect({ status: broken.status, body: json(broken) }).toEqual({
      status: 400,
      body: { error: 'Invalid JSON body', code: 'INVALID_JSON' },
    });
  });

  test('JSON nested past 256 levels is refused, in UTF-8 before the parse and in UTF-16 after', async () => {
    const deep = `${'['.repeat(257)}${']'.repeat(257)}`;
    for (const [charset, body] of [
      ['utf-8', Buffer.from(deep)],
      ['utf-16le', Buffer.from(deep, 'utf16le')],
    ] as const) {
      const answer = await send('POST', '/items', {
        headers: { 'content-type': `application/json; charset=${charset}` },
        body,
      });
      expect({ charset, status: answer.status, body: json(answer) }).toEqual({
        charset,
        status: 400,
        body: {
          error: 'Invalid JSON body: arrays and objects nest deeper than 256 levels',
          code: 'INVALID_JSON',
        },
      });
    }
    const allowed = `${'['.repeat(256)}${']'.repeat(256)}`;
    const kept = await send('POST', '/items', {
      headers: { 'content-type': 'application/json' },
      body: allowed,
    });
    expect(kept.status).toBe(201);
  });

  test('a body is limited inflated: a small gzip that unpacks past the limit is 413', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const refused = await send('POST', '/hooks/1', {
      headers: { 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(refused.status).toBe(413);
    const inflated = await send('POST', '/hooks/1', {
      headers: { 'content-encoding': 'deflate' },
      body: deflateSync(Buffer.from('x'.repeat(64))),
    });
    expect(json(inflated)).toEqual({ bytes: 64 });
    const unknown = await send('POST', '/hooks/1', {
      headers: { 'content-encoding': 'zstd' },
      body: 'x',
    });
    expect(unknown.status).toBe(415);
  });

  test('an unsafe request with cookies from another site is 403 before its body is read', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const answer = await send('POST', '/items', {
        headers: { ...headers, cookie: 'session=x', 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(json(answer)).toEqual({ error: 'Cross-site request refused', code: 'FORBIDDEN' });
    }
    const trusted = await send('POST', '/items', {
      headers: { origin: TRUSTED_ORIGIN, cookie: 'session=x', 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(trusted.status).toBe(201);
    expect(trusted.headers['access-control-allow-origin']).toBe(TRUSTED_ORIGIN);
    // A route without a session carries no cookie's authority: nothing to refuse.
    const hook = await send('POST', '/hooks/1', {
      headers: { origin: 'https://evil.example', cookie: 'session=x' },
      body: '{}',
    });
    expect(hook.status).toBe(200);
  });

  test('CORS: the configured origin gets its preflight answered, another origin nothing', async () => {
    const preflight = await send('OPTIONS', '/items', {
      headers: { origin: TRUSTED_ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    const foreign = await send('GET', '/items/1', { headers: { origin: 'https://evil.example' } });
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  test('the request log names the route template and never a webhook address', async () => {
    const secret = '0b9f3c55-bd1f-4a39-9c0e-5a4a8c1f4f52';
    await send('POST', `/webhooks/${secret}`, { body: '{}' });
    await send('GET', `/items/${secret}`);
    const lines = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line['path'] === `/webhooks/${secret}`)).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', route: '/items/:itemId', status: 200 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'request', route: 'unmatched', status: 404 }),
    );
  });
});
