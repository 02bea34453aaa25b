import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import {
  EgressBlockedError,
  refusedBeforeSending,
  assertPublicUrl,
  createGuardedFetch,
  isAddressAllowed,
  parseAllowlist,
} from './guard';
import { makeTestCertificates } from '@wap/testing';

const NONE = parseAllowlist('');

describe('address rules', () => {
  test.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    // Every IPv6 spelling of a private or loopback IPv4 address (issue 41 item 6).
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['::10.0.0.1', false],
    ['::ffff:0:127.0.0.1', false],
    ['64:ff9b::127.0.0.1', false],
    ['64:ff9b:1::a00:1', false],
    ['2002:7f00:1::', false],
    ['fc00::1', false],
    ['fe80::1', false],
    ['8.8.8.8', true],
    ['2001:4860:4860::8888', true],
    ['not-an-ip', false],
  ])('%s is public: %s', (address, allowed) => {
    expect(isAddressAllowed(address, NONE)).toBe(allowed);
  });

  test('allow-listed ranges and addresses pass, others stay refused', () => {
    const allowlist = parseAllowlist(' 127.0.0.0/8, 10.0.0.5 ,Internal.Example ');
    expect(isAddressAllowed('127.0.0.9', allowlist)).toBe(true);
    expect(isAddressAllowed('::ffff:127.0.0.1', allowlist)).toBe(true);
    expect(isAddressAllowed('::7f00:1', allowlist)).toBe(false);
    expect(isAddressAllowed('10.0.0.5', allowlist)).toBe(true);
    expect(isAddressAllowed('10.0.0.6', allowlist)).toBe(false);
    expect(allowlist.hosts.has('internal.example')).toBe(true);
  });
});

describe('assertPublicUrl', () => {
  test.each([
    'https://127.0.0.1/mcp',
    'https://[::1]/mcp',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost:8443/mcp',
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
  ])('refuses %s', async (url) => {
    await expect(assertPublicUrl(url, { allowlist: NONE })).rejects.toThrow(EgressBlockedError);
  });

  test('refuses schemes other than http and https', async () => {
    await expect(assertPublicUrl('file:///etc/passwd', { allowlist: NONE })).rejects.toThrow(
      'Only http and https URLs can be reached: file:',
    );
  });

  test('an allow-listed host or range passes', async () => {
    await expect(
      assertPublicUrl('https://localhost/mcp', { allowlist: parseAllowlist('localhost') }),
    ).resolves.toBeUndefined();
    await expect(
      assertPublicUrl('https://127.0.0.1/mcp', { allowlist: parseAllowlist('127.0.0.0/8') }),
    ).resolves.toBeUndefined();
  });
});

describe('guarded fetch', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const redirect = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (redirect) {
        res.writeHead(302, { location: redirect }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('an IP-literal loopback host is refused before connecting', async () => {
    const guarded = createGuardedFetch({ allowlist: NONE });
    const failure = await guarded(`http://127.0.0.1:${port}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressBlockedError);
    expect(refusedBeforeSending(failure)).toBe(true);
    await guarded.close();
  });

  test('a name resolving to loopback is refused at connect time', async () => {
    const guarded = createGuardedFetch({ allowlist: NONE });
    const failure = await guarded(`http://localhost:${port}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error & { cause?: unknown }).cause).toBeInstanceOf(EgressBlockedError);
    expect(refusedBeforeSending(failure)).toBe(true);
    await guarded.close();
  });

  test('a refused redirect is not refused before sending: the first request went out', async () => {
    const guarded = createGuardedFetch({ allowlist: parseAllowlist('127.0.0.1') });
    const failure = await guarded(
      `http://127.0.0.1:${port}/?to=${encodeURIComponent('http://10.0.0.1/')}`,
    ).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EgressBlockedError);
    expect(refusedBeforeSending(failure)).toBe(false);
    expect(refusedBeforeSending(new EgressBlockedError('made elsewhere'))).toBe(false);
    await guarded.close();
  });

  test('an allow-listed range is reached, and a redirect into a private address is refused', async () => {
    const guarded = createGuardedFetch({ allowlist: parseAllowlist('127.0.0.1') });
    const ok = await guarded(`http://127.0.0.1:${port}/hello`);
    expect(await ok.text()).toBe('GET /hello');

    const followed = await guarded(
      `http://127.0.0.1:${port}/?to=${encodeURIComponent(`http://127.0.0.1:${port}/next`)}`,
      { method: 'POST', body: 'x' },
    );
    expect(await followed.text()).toBe('GET /next');

    await expect(
      guarded(`http://127.0.0.1:${port}/?to=${encodeURIComponent('http://10.0.0.1/')}`),
    ).rejects.toThrow('http://10.0.0.1 is not a public address');
    await expect(
      guarded(`http://127.0.0.1:${port}/?to=${encodeURIComponent('http://[::1]:1/')}`),
    ).rejects.toThrow(EgressBlockedError);
    await guarded.close();
  });
});

describe('guarded fetch: redirects and credentials', () => {
  /** What a server saw: method, path, headers and body of each request. */
  interface Seen {
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  }
  let first: Server;
  let second: Server;
  let firstOrigin: string;
  let secondOrigin: string;
  const seenByFirst: Seen[] = [];
  const seenBySecond: Seen[] = [];
  const allowlist = parseAllowlist('127.0.0.1');
  const CREDENTIALS = {
    authorization: 'Bearer step-token',
    'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
    cookie: 'session=secret',
    'x-api-key': 'mcp-header-secret',
    'x-custom-auth': 'a header the user named',
  };

  /** A server that records what it is sent and answers `?status=&to=` with that redirect. */
  async function recordingServer(seen: Seen[]): Promise<{ server: Server; origin: string }> {
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
        const query = new URL(req.url ?? '/', 'http://x').searchParams;
        const to = query.get('to');
        if (to) {
          res.writeHead(Number(query.get('status') ?? 302), { location: to }).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' }).end('arrived');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  beforeAll(async () => {
    ({ server: first, origin: firstOrigin } = await recordingServer(seenByFirst));
    ({ server: second, origin: secondOrigin } = await recordingServer(seenBySecond));
  });
  afterEach(() => {
    seenByFirst.length = 0;
    seenBySecond.length = 0;
  });
  afterAll(async () => {
    await Promise.all(
      [first, second].map(
        (server) => new Promise<void>((resolve) => server.close(() => resolve())),
      ),
    );
  });

  const redirect = (from: string, to: string, status = 302) =>
    `${from}/start?status=${status}&to=${encodeURIComponent(to)}`;

  test('a redirect to another origin drops every header that could carry a credential', async () => {
    const guarded = createGuardedFetch({ allowlist });
    const response = await guarded(redirect(firstOrigin, `${secondOrigin}/landed`), {
      headers: { ...CREDENTIALS, accept: 'application/json', 'user-agent': 'wap-test' },
    });
    expect(await response.text()).toBe('arrived');
    expect(seenByFirst[0]?.headers).toMatchObject(CREDENTIALS);
    const landed = seenBySecond[0]?.headers ?? {};
    for (const name of Object.keys(CREDENTIALS)) expect(landed[name]).toBeUndefined();
    expect(landed).toMatchObject({ accept: 'application/json', 'user-agent': 'wap-test' });
    await guarded.close();
  });

  test('a 307 to another origin sends the body again, without the credentials', async () => {
    const guarded = createGuardedFetch({ allowlist });
    await guarded(redirect(firstOrigin, `${secondOrigin}/landed`, 307), {
      method: 'POST',
      headers: { ...CREDENTIALS, 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0"}',
    });
    expect(seenBySecond[0]).toMatchObject({ method: 'POST', body: '{"jsonrpc":"2.0"}' });
    for (const name of Object.keys(CREDENTIALS)) {
      expect(seenBySecond[0]?.headers[name]).toBeUndefined();
    }
    await guarded.close();
  });

  test('once dropped, the credentials stay dropped on a redirect back to the first origin', async () => {
    const guarded = createGuardedFetch({ allowlist });
    const back = redirect(secondOrigin, `${firstOrigin}/back`);
    await guarded(redirect(firstOrigin, back), { headers: CREDENTIALS });
    expect(seenByFirst.map((seen) => seen.path)).toEqual([
      expect.stringMatching(/^\/start/),
      '/back',
    ]);
    for (const name of Object.keys(CREDENTIALS)) {
      expect(seenByFirst[1]?.headers[name]).toBeUndefined();
    }
    await guarded.close();
  });

  test('a redirect within the origin keeps them', async () => {
    const guarded = createGuardedFetch({ allowlist });
    await guarded(redirect(firstOrigin, `${firstOrigin}/same`), { headers: CREDENTIALS });
    expect(seenByFirst[1]).toMatchObject({ path: '/same', headers: CREDENTIALS });
    await guarded.close();
  });

  test('a POST turned into a GET by a 303 loses its body and the headers that described it', async () => {
    const guarded = createGuardedFetch({ allowlist });
    await guarded(redirect(firstOrigin, `${firstOrigin}/after`, 303), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer step-token' },
      body: '{}',
    });
    expect(seenByFirst[1]).toMatchObject({ method: 'GET', path: '/after', body: '' });
    expect(seenByFirst[1]?.headers['content-type']).toBeUndefined();
    expect(seenByFirst[1]?.headers['authorization']).toBe('Bearer step-token');
    await guarded.close();
  });

  test('a redirect loop ends after the bound', async () => {
    const guarded = createGuardedFetch({ allowlist, maxRedirects: 3 });
    const selfRedirect = (depth: number): string =>
      depth === 0 ? `${firstOrigin}/end` : redirect(firstOrigin, selfRedirect(depth - 1));
    await expect(guarded(selfRedirect(4))).rejects.toThrow('Too many redirects');
    await expect(guarded(selfRedirect(3))).resolves.toMatchObject({ status: 200 });
    await guarded.close();
  });

  test('a redirect from https to http is refused before anything is sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'egress-tls-'));
    const { caPem, keyPem, certPem } = makeTestCertificates(dir);
    const secure = createHttpsServer({ key: keyPem, cert: certPem }, (_req, res) =>
      res.writeHead(302, { location: `${secondOrigin}/downgraded` }).end(),
    );
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    const guarded = createGuardedFetch({ allowlist, ca: [caPem] });
    try {
      const port = (secure.address() as AddressInfo).port;
      await expect(guarded(`https://127.0.0.1:${port}/`, { headers: CREDENTIALS })).rejects.toThrow(
        'A redirect from https to http was refused',
      );
      expect(seenBySecond).toEqual([]);
    } finally {
      await guarded.close();
      await new Promise<void>((resolve) => secure.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
