import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmbeddedPlatform, type Platform } from '@wap/platform';
import { testLogger } from '@wap/testing';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createStepExecutor, type StepContext } from './steps';

/** A local server that speaks plain HTTP, for the http_request step (no SSRF guard in this spec). */
async function startServer(): Promise<{ url: string; server: Server; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(`${req.headers['content-type'] ?? ''}|${Buffer.concat(chunks).toString('utf8')}`);
      if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 1_000);
        return;
      }
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(5_000)}"`);
        return;
      }
      if (req.url === '/busy') {
        res.writeHead(429, { 'retry-after': '7' }).end();
        return;
      }
      if (req.url === '/broken') {
        res.writeHead(503).end();
        return;
      }
      if (req.url === '/key') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ key: req.headers['idempotency-key'] ?? null }));
        return;
      }
      if (req.url === '/missing') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}');
        return;
      }
      res
        .writeHead(201, { 'content-type': 'application/json; charset=utf-8' })
        .end('{"created":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, bodies };
}

describe('step execution', () => {
  let target: Awaited<ReturnType<typeof startServer>>;
  let platform: Platform;
  let dataDir: string;
  const context: StepContext = {
    workspaceId: '3f1c1f9e-7c36-4a1c-9d2e-0a3c8b7c6d5e',
    actingUserId: '9b7d5c3a-1e2f-4a6b-8c9d-0e1f2a3b4c5d',
    startedAt: new Date('2026-01-01T10:00:00Z'),
    now: new Date('2026-01-01T10:00:00Z'),
    idempotencyKey: 'run-1:0:0',
    signal: new AbortController().signal,
  };

  beforeAll(async () => {
    target = await startServer();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'steps-spec-'));
    platform = await createEmbeddedPlatform({ dataDir, logger: testLogger() });
  });
  afterAll(async () => {
    await new Promise((resolve) => target.server.close(resolve));
    await platform.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function executor(overrides: { httpTimeoutMs?: number; maxResponseBytes?: number } = {}) {
    return createStepExecutor({
      bus: platform.bus,
      httpFetch: (url, init) => fetch(url, init),
      httpTimeoutMs: overrides.httpTimeoutMs ?? 5_000,
      maxResponseBytes: overrides.maxResponseBytes ?? 64 * 1024,
      busTimeoutMs: 1_000,
    });
  }

  test('http_request sends an object body as JSON and keeps status, headers and the parsed body', async () => {
    const outcome = await executor().execute(
      'http_request',
      { method: 'POST', url: `${target.url}/items`, body: { a: 1 } },
      context,
    );
    expect(outcome).toMatchObject({
      kind: 'succeeded',
      output: {
        status: 201,
        body: { created: true },
        headers: { 'content-type': 'application/json; charset=utf-8' },
      },
    });
    expect(target.bodies.at(-1)).toBe('application/json|{"a":1}');
  });

  test('http_request sends a string body as it is, with the given content type', async () => {
    await executor().execute(
      'http_request',
      {
        method: 'PUT',
        url: `${target.url}/text`,
        headers: { 'content-type': 'text/plain' },
        body: 'hi there',
      },
      context,
    );
    expect(target.bodies.at(-1)).toBe('text/plain|hi there');
  });

  test('an HTTP error status fails the step and keeps the response as output', async () => {
    const outcome = await executor().execute(
      'http_request',
      { method: 'GET', url: `${target.url}/missing` },
      context,
    );
    expect(outcome).toEqual({
      kind: 'failed',
      error: 'The server answered HTTP 404',
      output: expect.objectContaining({ status: 404, body: { error: 'nope' } }),
    });
  });

  test.each([
    [{ method: 'GET', url: 'not a url' }, 'Invalid URL: not a url'],
    [
      { method: 'GET', url: 'ftp://example.com/file' },
      'Only http and https URLs can be called: ftp:',
    ],
    [
      { method: 'GET', url: '' },
      'Invalid settings once templates were filled: url: Too small: expected string to have >=1 characters',
    ],
  ])(
    'http_request with %j fails before sending anything, refundable: %s',
    async (settings, error) => {
      expect(await executor().execute('http_request', settings, context)).toEqual({
        kind: 'failed',
        error,
        refundable: true,
      });
    },
  );

  test('a response slower than the timeout fails the step', async () => {
    const outcome = await executor({ httpTimeoutMs: 200 }).execute(
      'http_request',
      { method: 'GET', url: `${target.url}/slow` },
      context,
    );
    expect(outcome).toEqual({
      kind: 'failed',
      error: 'Request timed out after 200 ms',
      failure: 'timeout',
    });
  });

  test("a step's own timeoutMs wins over the executor's", async () => {
    const outcome = await executor({ httpTimeoutMs: 5_000 }).execute(
      'http_request',
      { method: 'GET', url: `${target.url}/slow` },
      { ...context, timeoutMs: 150 },
    );
    expect(outcome).toEqual({
      kind: 'failed',
      error: 'Request timed out after 150 ms',
      failure: 'timeout',
    });
  });

  test('a 429 is rate_limited with its Retry-After, a 5xx a server_error, a 404 nothing to retry', async () => {
    const request = (url: string) =>
      executor().execute('http_request', { method: 'GET', url: `${target.url}${url}` }, context);
    expect(await request('/busy')).toMatchObject({
      kind: 'failed',
      failure: 'rate_limited',
      retryAfterMs: 7_000,
    });
    expect(await request('/broken')).toMatchObject({ kind: 'failed', failure: 'server_error' });
    expect(await request('/missing')).not.toHaveProperty('failure');
  });

  test('a server that is not there is a network failure, which a retry may answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    expect(
      await executor().execute(
        'http_request',
        { method: 'GET', url: `http://127.0.0.1:${port}/` },
        context,
      ),
    ).toMatchObject({ kind: 'failed', failure: 'network' });
  });

  test("http_request sends the step's Idempotency-Key unless the workflow sets its own", async () => {
    const sent = await executor().execute(
      'http_request',
      { method: 'POST', url: `${target.url}/key` },
      context,
    );
    expect(sent).toMatchObject({ output: { body: { key: 'run-1:0:0' } } });
    const own = await executor().execute(
      'http_request',
      { method: 'POST', url: `${target.url}/key`, headers: { 'Idempotency-Key': 'mine' } },
      context,
    );
    expect(own).toMatchObject({ output: { body: { key: 'mine' } } });
  });

  test('a response body over the limit is cut and marked truncated', async () => {
    const outcome = await executor({ maxResponseBytes: 1_024 }).execute(
      'http_request',
      { method: 'GET', url: `${target.url}/big` },
      context,
    );
    expect(outcome.kind).toBe('succeeded');
    const output = (outcome as { output: { body: string; truncated: boolean } }).output;
    expect(output.truncated).toBe(true);
    expect(output.body).toHaveLength(1_024);
  });

  test('delay waits until startedAt + seconds, then succeeds', async () => {
    const waiting = await executor().execute('delay', { seconds: 90 }, context);
    expect(waiting).toEqual({ kind: 'wait_until', at: new Date('2026-01-01T10:01:30Z') });
    const done = await executor().execute(
      'delay',
      { seconds: 90 },
      {
        ...context,
        now: new Date('2026-01-01T10:01:30Z'),
      },
    );
    expect(done).toEqual({ kind: 'succeeded', output: { waited_seconds: 90 } });
    expect(await executor().execute('delay', { seconds: 'soon' }, context)).toMatchObject({
      kind: 'failed',
    });
  });

  test('approval pauses with its reviewers and message', async () => {
    const reviewerIds = ['0c5e7a1b-2d3f-4e5a-8b6c-7d8e9f0a1b2c'];
    expect(
      await executor().execute('approval', { reviewerIds, message: 'Ship?' }, context),
    ).toEqual({
      kind: 'wait_approval',
      reviewerIds,
      message: 'Ship?',
    });
  });

  test('an mcp_tool step fails clearly while no MCP service answers', async () => {
    expect(
      await executor().execute(
        'mcp_tool',
        { serverId: 's1', toolName: 'echo', arguments: {} },
        context,
      ),
    ).toEqual({
      kind: 'failed',
      error: 'The MCP tool service is not available: no service answers mcp.api.call_tool.v1',
      refundable: true,
      failure: 'network',
    });
  });
});
