import { SignJWT } from 'jose';
import { ROUTES } from '@wap/contracts';
import { startGateway, type GatewayHandle } from '@wap/gateway-service';
import { eventually } from '@wap/testing';
import { http, RUNTIMES, SESSION_SECRET, startStack, uniqueEmail, type TestStack } from './stack';

const signedOutBody = { error: 'This session was signed out', code: 'UNAUTHORIZED' };

/**
 * Sign-out on the server (issue 41 item 6): a copied cookie stops working once its session
 * signs out, on every gateway replica; "sign out everywhere" ends every session of the person
 * issued until then, and a new sign-in works.
 */
describe.each(RUNTIMES)('signed-out sessions on the %s runtime', (runtime) => {
  let stack: TestStack;
  let replica: GatewayHandle;

  beforeAll(async () => {
    stack = await startStack(runtime);
    // A second gateway replica on the same bus: it must refuse what the first one signed out.
    replica = await startGateway({
      platform: await stack.as('gateway'),
      logger: stack.logger,
      isReady: () => true,
      routes: ROUTES,
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
      },
    });
  }, 120_000);
  afterAll(async () => {
    await replica?.stop();
    await stack?.stop();
  });

  /** A cookie of `email` issued `secondsAgo` seconds ago, as an identity provider's would be. */
  async function cookieIssued(email: string, secondsAgo: number): Promise<string> {
    const issuedAtSec = Math.floor(Date.now() / 1000) - secondsAgo;
    const token = await new SignJWT({ email, name: 'someone' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(`test|${email}`)
      .setIssuedAt(issuedAtSec)
      .setExpirationTime(issuedAtSec + 3600)
      .sign(new TextEncoder().encode(SESSION_SECRET));
    return `session=${token}`;
  }

  test('a copied cookie is refused after its session signs out, on every replica', async () => {
    const email = uniqueEmail('copied');
    const cookie = await cookieIssued(email, 0);
    expect((await http(`${stack.url}/me`, { cookie })).status).toBe(200);
    expect((await http(`${replica.url}/me`, { cookie })).status).toBe(200);
    const signedOut = await http(`${stack.url}/session/sign-out`, { method: 'POST', cookie });
    expect(signedOut.status).toBe(204);
    expect(signedOut.headers.get('set-cookie')).toContain('Max-Age=0');
    // The copy an attacker kept: refused at once where it signed out, and on the other replica.
    const here = await http(`${stack.url}/me`, { cookie });
    expect(here.status).toBe(401);
    expect(here.body).toEqual(signedOutBody);
    await eventually(async () => {
      const there = await http(`${replica.url}/me`, { cookie });
      expect(there.status).toBe(401);
      expect(there.body).toEqual(signedOutBody);
    });
    // Another session of the same person goes on.
    const other = await cookieIssued(email, 30);
    expect((await http(`${stack.url}/me`, { cookie: other })).status).toBe(200);
  });

  test('sign out everywhere ends every earlier session of the person; a new sign-in works', async () => {
    const email = uniqueEmail('everywhere');
    const laptop = await cookieIssued(email, 60);
    const phone = await cookieIssued(email, 5);
    const bystander = await cookieIssued(uniqueEmail('bystander'), 60);
    for (const cookie of [laptop, phone, bystander]) {
      expect((await http(`${stack.url}/me`, { cookie })).status).toBe(200);
    }
    const everywhere = await http(`${replica.url}/session/sign-out-everywhere`, {
      method: 'POST',
      cookie: phone,
    });
    expect(everywhere.status).toBe(204);
    await eventually(async () => {
      for (const cookie of [laptop, phone]) {
        const refused = await http(`${stack.url}/me`, { cookie });
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual(signedOutBody);
      }
    });
    expect((await http(`${stack.url}/me`, { cookie: bystander })).status).toBe(200);
    // A session issued within the second of the sign-out may have come before it: refused
    // too. A sign-in after that second works.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 20));
    const again = await cookieIssued(email, 0);
    expect((await http(`${stack.url}/me`, { cookie: again })).status).toBe(200);
    expect((await http(`${replica.url}/me`, { cookie: again })).status).toBe(200);

    // Without a session there is nothing to sign out; from another site it is refused.
    const anonymous = await http(`${stack.url}/session/sign-out-everywhere`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    const foreign = await http(`${stack.url}/session/sign-out-everywhere`, {
      method: 'POST',
      cookie: again,
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await http(`${stack.url}/me`, { cookie: again })).status).toBe(200);
  });
});
