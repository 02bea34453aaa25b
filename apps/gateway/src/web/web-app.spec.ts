import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROUTES } from '@wap/contracts';
import { testLogger, testRuntimes, type RuntimeUnderTest } from '@wap/testing';
import type { GatewayConfig } from '../config';
import { startGateway, type GatewayHandle } from '../service';
import { findBuiltWebApp } from './built-web-app';
import { WEB_APP_CONTENT_SECURITY_POLICY } from './web-app';

const INDEX_HTML =
  '<!doctype html><html lang="en"><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const ENTRY_SCRIPT = 'console.log("web app");';

function baseConfig(overrides: Partial<GatewayConfig>): GatewayConfig {
  return {
    production: false,
    port: 0,
    host: '127.0.0.1',
    session: { mode: 'secret', secret: 'web-app-spec-secret-that-is-long-enough-0123' },
    requestTimeoutMs: 3000,
    bodyLimitBytes: 64 * 1024,
    trustProxyHops: 0,
    sessionCookieSecure: true,
    devSignIn: true,
    ...overrides,
  };
}

function writeBuild(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wap-web-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), ENTRY_SCRIPT);
  return dir;
}

describe.each(testRuntimes('gateway-web'))('the gateway on the %s runtime', (_label, start) => {
  let runtime: RuntimeUnderTest;
  const distDir = writeBuild();
  const gateways: GatewayHandle[] = [];

  async function gatewayWith(config: Partial<GatewayConfig>): Promise<string> {
    const gateway = await startGateway({
      platform: runtime.platform,
      logger: testLogger(),
      config: baseConfig(config),
      isReady: () => true,
      routes: ROUTES,
    });
    gateways.push(gateway);
    return gateway.url;
  }

  beforeAll(async () => {
    runtime = await start();
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await runtime.cleanup();
    rmSync(distDir, { recursive: true, force: true });
  });

  describe('with a built web app', () => {
    let url: string;
    beforeAll(async () => {
      url = await gatewayWith({ webDistDir: distDir });
    });

    test.each([
      '/',
      '/app',
      '/app/',
      '/app/sign-in',
      '/app/w/3f2b8a9e-1c7d-4e55-9a0b-7d1e2f3a4b5c/members',
    ])('GET %s answers index.html, not cached, under a strict CSP', async (path) => {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(WEB_APP_CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await response.text()).toBe(INDEX_HTML);
    });

    test('the CSP allows only this origin and nothing inline', () => {
      const directives = WEB_APP_CONTENT_SECURITY_POLICY.split('; ');
      expect(directives).toContain("default-src 'self'");
      expect(directives).toContain("script-src 'self'");
      expect(WEB_APP_CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
      expect(WEB_APP_CONTENT_SECURITY_POLICY).not.toContain('unsafe-eval');
    });

    test('an asset is served with a year-long immutable cache', async () => {
      const response = await fetch(`${url}/assets/index-abc123.js`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(await response.text()).toBe(ENTRY_SCRIPT);
    });

    test('a missing asset is a 404 Error body, not the HTML', async () => {
      const response = await fetch(`${url}/assets/index-gone.js`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'Not found', code: 'ROUTE_NOT_FOUND' });
    });

    test('API routes still answer JSON', async () => {
      const response = await fetch(`${url}/me`);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      const openApi = await fetch(`${url}/openapi.json`);
      expect(openApi.headers.get('content-type')).toMatch(/^application\/json/);
    });
  });

  test('without a build, / answers its JSON description', async () => {
    const url = await gatewayWith({});
    const response = await fetch(`${url}/`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      service: 'workspace assistant and automation platform',
      openapi: '/openapi.json',
      signIn: '/dev/sign-in?email=you@example.com',
    });
    expect((await fetch(`${url}/app/sign-in`)).status).toBe(404);
  });

  test('a web folder without index.html stops the gateway from starting', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'wap-web-empty-'));
    try {
      await expect(gatewayWith({ webDistDir: empty })).rejects.toThrow(/has no index\.html/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  describe('session routes', () => {
    test.each([
      [true, 'session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure'],
      [false, 'session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0'],
    ])(
      'POST /session/sign-out (Secure cookie: %s) answers 204, expiring it',
      async (secure, cookie) => {
        const url = await gatewayWith({ sessionCookieSecure: secure });
        const response = await fetch(`${url}/session/sign-out`, { method: 'POST' });
        expect(response.status).toBe(204);
        expect(response.headers.get('set-cookie')).toBe(cookie);
        expect(await response.text()).toBe('');
      },
    );

    test('a signed-out cookie no longer reaches /me', async () => {
      const url = await gatewayWith({ sessionCookieSecure: false });
      const signIn = await fetch(`${url}/dev/sign-in?email=signout@example.com`, {
        redirect: 'manual',
      });
      const session = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(session).toMatch(/^session=.+/);
      const signOut = await fetch(`${url}/session/sign-out`, {
        method: 'POST',
        headers: { cookie: session },
      });
      const cleared = (signOut.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(cleared).toBe('session=');
      const me = await fetch(`${url}/me`, { headers: { cookie: cleared } });
      expect(me.status).toBe(401);
      expect(await me.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    });

    test.each([
      ['DEV_SIGN_IN=on with a session secret', {}, 'development'],
      ['a session secret alone', { devSignIn: false }, 'sign_in_link'],
      [
        'an identity provider (JWKS)',
        {
          session: {
            mode: 'jwks',
            jwksUrl: 'https://id.example.com/.well-known/jwks.json',
            issuer: 'https://id.example.com/',
            audience: 'wap',
          },
          devSignIn: false,
        },
        'identity_provider',
      ],
    ] as const)('GET /session/sign-in-method in %s says %s', async (_label, config, method) => {
      const url = await gatewayWith(config as Partial<GatewayConfig>);
      const response = await fetch(`${url}/session/sign-in-method`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ method });
      const devSignIn = await fetch(`${url}/dev/sign-in?email=a@example.com`, {
        redirect: 'manual',
      });
      expect(devSignIn.status).toBe(method === 'development' ? 303 : 404);
    });
  });
});

describe('findBuiltWebApp', () => {
  test('finds dist/apps/web above the start folder, from sources and bundles alike', () => {
    const root = mkdtempSync(join(tmpdir(), 'wap-repo-'));
    try {
      mkdirSync(join(root, 'dist/apps/web'), { recursive: true });
      mkdirSync(join(root, 'apps/gateway/src/web'), { recursive: true });
      mkdirSync(join(root, 'dist/apps/gateway/src'), { recursive: true });
      expect(findBuiltWebApp(join(root, 'apps/gateway/src/web'))).toBeUndefined();
      writeFileSync(join(root, 'dist/apps/web/index.html'), INDEX_HTML);
      expect(findBuiltWebApp(join(root, 'apps/gateway/src/web'))).toBe(join(root, 'dist/apps/web'));
      expect(findBuiltWebApp(join(root, 'dist/apps/gateway/src'))).toBe(
        join(root, 'dist/apps/web'),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
