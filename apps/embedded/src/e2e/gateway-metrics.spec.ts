import { randomUUID } from 'node:crypto';
import { http, RUNTIMES, startStack, uniqueEmail, type TestStack } from './stack';

const REQUESTS = 'wap_http_request_duration_seconds_count';

/** The request counts of one scrape, keyed `method route status`. */
async function scrapeRequestCounts(
  url: string,
): Promise<{ counts: Map<string, number>; text: string; contentType: string | null }> {
  const response = await http(`${url}/metrics`);
  expect(response.status).toBe(200);
  const counts = new Map<string, number>();
  for (const line of response.text.split('\n')) {
    if (!line.startsWith(`${REQUESTS}{`)) continue;
    const labels = Object.fromEntries(
      [...line.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name, value]),
    );
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    counts.set(`${labels['method']} ${labels['route']} ${labels['status']}`, value);
  }
  return { counts, text: response.text, contentType: response.headers.get('content-type') };
}

describe.each(RUNTIMES)('the gateway’s metrics on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  test('each request is counted by method, route template and status, never by its path', async () => {
    const cookie = await stack.cookieFor(uniqueEmail('metrics'));
    const missing = randomUUID();
    const before = await scrapeRequestCounts(stack.url);

    expect((await http(`${stack.url}/me`, { cookie })).status).toBe(200);
    expect((await http(`${stack.url}/me`, { cookie })).status).toBe(200);
    expect((await http(`${stack.url}/workflows/${missing}`, { cookie })).status).toBe(404);
    expect((await http(`${stack.url}/no-such-route/${missing}`, { cookie })).status).toBe(404);
    expect(
      (await http(`${stack.url}/webhooks/${missing}`, { method: 'POST', body: { a: 1 } })).status,
    ).toBe(404);

    const after = await scrapeRequestCounts(stack.url);
    const added = (key: string) => (after.counts.get(key) ?? 0) - (before.counts.get(key) ?? 0);
    expect(added('GET /me 200')).toBe(2);
    expect(added('GET /workflows/:id 404')).toBe(1);
    expect(added('GET unmatched 404')).toBe(1);
    expect(added('POST /webhooks/:webhookId 404')).toBe(1);
    expect(added('GET /metrics 200')).toBe(1);
    expect(after.text).not.toContain(missing);
    expect(after.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});

describe('who may read the gateway’s metrics', () => {
  const stacks: TestStack[] = [];
  afterAll(async () => {
    await Promise.all(stacks.map((stack) => stack.stop()));
  });

  test('with a token, only a request that presents it', async () => {
    const token = randomUUID();
    const stack = await startStack('embedded', {
      config: { production: true, metricsAccess: { kind: 'token', token } },
    });
    stacks.push(stack);
    const unauthorized = { error: 'A metrics token is required', code: 'UNAUTHORIZED' };
    const without = await http(`${stack.url}/metrics`);
    expect([without.status, without.body]).toEqual([401, unauthorized]);
    const wrong = await http(`${stack.url}/metrics`, {
      headers: { authorization: `Bearer ${randomUUID()}` },
    });
    expect([wrong.status, wrong.body]).toEqual([401, unauthorized]);
    const right = await http(`${stack.url}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(right.status).toBe(200);
    expect(right.text).toContain('# TYPE wap_http_request_duration_seconds histogram');
  });

  test('in production without a token, not at all', async () => {
    const stack = await startStack('embedded', { config: { production: true } });
    stacks.push(stack);
    const response = await http(`${stack.url}/metrics`);
    expect([response.status, response.body]).toEqual([
      404,
      { error: 'Not found', code: 'ROUTE_NOT_FOUND' },
    ]);
  });
});
