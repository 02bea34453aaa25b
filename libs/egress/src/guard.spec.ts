import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  EgressBlockedError,
  assertPublicUrl,
  createGuardedFetch,
  isAddressAllowed,
  parseAllowlist,
} from './guard';

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
    await expect(guarded(`http://127.0.0.1:${port}/`)).rejects.toThrow(EgressBlockedError);
    await guarded.close();
  });

  test('a name resolving to loopback is refused at connect time', async () => {
    const guarded = createGuardedFetch({ allowlist: NONE });
    const failure = await guarded(`http://localhost:${port}/`).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error & { cause?: unknown }).cause).toBeInstanceOf(EgressBlockedError);
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
