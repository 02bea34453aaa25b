import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiError } from './api-error';
import { createApiClient } from './api-client';
import { describeError } from './error-messages';

interface Received {
  method: string;
  url: string;
  contentType: string | undefined;
  body: string;
}

/** A real HTTP server that answers each path as the gateway would, recording what it got. */
function startGatewayDouble(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const answer = (
    res: ServerResponse,
    status: number,
    body?: unknown,
    type = 'application/json',
  ) => {
    res.writeHead(status, body === undefined ? {} : { 'content-type': type });
    res.end(
      body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    );
  };
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        contentType: req.headers['content-type'],
        body,
      });
      const path = (req.url ?? '').split('?')[0] ?? '';
      switch (path) {
        case '/workspaces':
          return answer(res, 201, { workspace: { id: 'w1', name: JSON.parse(body).name } });
        case '/me':
          return answer(res, 200, { user: { email: 'a@example.com' } });
        case '/session/sign-out':
          return answer(res, 204);
        case '/expired':
          return answer(res, 401, { error: 'Session expired', code: 'SESSION_EXPIRED' });
        case '/anonymous':
          return answer(res, 401, { error: 'Not signed in', code: 'UNAUTHORIZED' });
        case '/forbidden':
          return answer(res, 403, { error: 'Only owners can add members', code: 'FORBIDDEN' });
        case '/invalid':
          return answer(res, 400, {
            error: 'Invalid request body',
            code: 'VALIDATION_ERROR',
            details: [
              { path: 'body.email', message: 'Invalid email address', code: 'invalid_format' },
            ],
          });
        case '/uncoded':
          return answer(res, 404, { error: 'Webhook not found' });
        case '/future-code':
          return answer(res, 418, { error: 'A teapot', code: 'SOMETHING_NEW' });
        case '/proxy-page':
          return answer(res, 502, '<html>Bad gateway</html>', 'text/html');
        default:
          return answer(res, 404, { error: 'Not found', code: 'ROUTE_NOT_FOUND' });
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}`, received });
    });
  });
}

describe('the API client', () => {
  let gateway: Awaited<ReturnType<typeof startGatewayDouble>>;
  const sessionEnded: ApiError[] = [];
  const fetchInits: RequestInit[] = [];
  let api: ReturnType<typeof createApiClient>;

  beforeAll(async () => {
    gateway = await startGatewayDouble();
    api = createApiClient({
      baseUrl: gateway.url,
      fetch: (input, init) => {
        fetchInits.push(init ?? {});
        return fetch(input, init);
      },
      onSessionEnded: (error) => sessionEnded.push(error),
    });
  });
  afterAll(() => new Promise<void>((resolve) => gateway.server.close(() => resolve())));

  test('sends JSON with the session cookie and returns the parsed answer', async () => {
    const created = await api.post<{ workspace: { name: string } }>('/workspaces', {
      name: 'Acme',
    });
    expect(created).toEqual({ workspace: { id: 'w1', name: 'Acme' } });
    expect(gateway.received.at(-1)).toEqual({
      method: 'POST',
      url: '/workspaces',
      contentType: 'application/json',
      body: '{"name":"Acme"}',
    });
    expect(fetchInits.at(-1)?.credentials).toBe('include');
  });

  test('encodes query parameters and leaves undefined ones out', async () => {
    await api.get('/me', { query: { workspaceId: 'a b&c', cursor: undefined, limit: 5 } });
    expect(gateway.received.at(-1)?.url).toBe('/me?workspaceId=a+b%26c&limit=5');
  });

  test('a 204 resolves with undefined', async () => {
    await expect(api.post('/session/sign-out')).resolves.toBeUndefined();
  });

  test('an Error body becomes an ApiError with its status, code, message and details', async () => {
    const error = await api.post('/invalid', { email: 'nope' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'Invalid request body',
    });
    expect((error as ApiError).validationIssues).toEqual([
      { path: 'body.email', message: 'Invalid email address' },
    ]);
  });

  test.each([
    ['/expired', 'SESSION_EXPIRED'],
    ['/anonymous', 'UNAUTHORIZED'],
  ] as const)('%s (401 %s) ends the session once, then rejects', async (path, code) => {
    const before = sessionEnded.length;
    const error = await api.get(path).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 401, code });
    expect(sessionEnded.slice(before)).toEqual([error]);
  });

  test('a 403 does not end the session', async () => {
    const before = sessionEnded.length;
    await expect(api.get('/forbidden')).rejects.toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(sessionEnded.length).toBe(before);
  });

  test('a body without a code, or with a code this build does not know, keeps its message', async () => {
    await expect(api.get('/uncoded')).rejects.toMatchObject({
      status: 404,
      code: undefined,
      message: 'Webhook not found',
    });
    const future = await api.get('/future-code').catch((e: unknown) => e);
    expect(future).toMatchObject({ status: 418, code: undefined });
    expect(describeError(future)).toBe('A teapot');
  });

  test('a body that is not an Error body keeps the status', async () => {
    const error = await api.get('/proxy-page').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: undefined });
    expect(describeError(error)).toBe('The request failed with status 502');
  });

  test('no answer at all is an ApiError with status 0', async () => {
    const closed = createApiClient({ baseUrl: 'http://127.0.0.1:9' });
    const error = await closed.get('/me').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 0, code: undefined });
    expect(describeError(error)).toBe('The platform could not be reached. Check your connection.');
  });

  test('an aborted request rejects with the abort, not as an ApiError', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await api.get('/me', { signal: controller.signal }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('AbortError');
  });
});

describe('describeError', () => {
  test.each([
    ['SESSION_EXPIRED', 'Session expired', 'Your session has expired. Sign in again.'],
    [
      'INTERNAL_ERROR',
      'Internal server error',
      'Something went wrong on our side. Try again in a moment.',
    ],
    [
      'SERVICE_UNAVAILABLE',
      'storage did not answer',
      'The platform is busy or restarting. Try again in a moment.',
    ],
    [
      'CONFLICT',
      'User is already a member of this workspace',
      'User is already a member of this workspace',
    ],
    [
      'FORBIDDEN',
      'You are not a member of this workspace',
      'You are not a member of this workspace',
    ],
  ] as const)('%s reads "%s" as "%s"', (code, serverMessage, shown) => {
    expect(describeError(new ApiError(400, { error: serverMessage, code }, code))).toBe(shown);
  });

  test('anything that is not an ApiError reads as a generic failure', () => {
    expect(describeError(new TypeError('x is undefined'))).toBe('Something went wrong. Try again.');
  });
});
