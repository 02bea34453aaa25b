import { decodeJwt, SignJWT } from 'jose';
import { signExtensionToken } from '@wap/auth';
import { EXTENSION_TOKEN_LIFETIME_SECONDS, MAX_ACTIVE_EXTENSION_TOKENS } from '@wap/contracts';
import {
  createWorkspace,
  EXTENSION_TOKEN_ISSUER,
  http,
  RUNTIMES,
  SESSION_SECRET,
  signedInPerson,
  startStack,
  type Person,
  type TestStack,
} from './stack';

interface Issued {
  token: string;
  extension_token: { id: string; name: string; expires_at: string; last_used_at: string | null };
}

describe.each(RUNTIMES)('extension tokens on the %s runtime', (runtime) => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await startStack(runtime);
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function issue(person: Person, name = 'Clipper'): Promise<Issued> {
    const issued = await http(`${stack.url}/me/extension-tokens`, {
      method: 'POST',
      cookie: person.cookie,
      body: { name },
    });
    expect(issued.status).toBe(201);
    return issued.body as Issued;
  }

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  test('a token carries exactly the spec claims, expires 30 days after issue, and is shown once', async () => {
    const person = await signedInPerson(stack, 'claims');
    const { token, extension_token } = await issue(person);
    const claims = decodeJwt(token);
    expect(claims).toEqual({
      type: 'extension',
      iss: 'wap-e2e',
      aud: 'wap-e2e-extension',
      sub: person.userId,
      jti: extension_token.id,
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    const { exp = 0, iat = 0 } = claims;
    expect(exp - iat).toBe(EXTENSION_TOKEN_LIFETIME_SECONDS);
    expect(Date.parse(extension_token.expires_at)).toBe(exp * 1000);

    const listed = await http(`${stack.url}/me/extension-tokens`, { cookie: person.cookie });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      extension_tokens: [
        {
          id: extension_token.id,
          name: 'Clipper',
          created_at: expect.any(String),
          expires_at: extension_token.expires_at,
          last_used_at: null,
        },
      ],
    });
    expect(listed.text).not.toContain(token);
  });

  test('the bearer acts as its person on the REST routes, within their workspaces only', async () => {
    const person = await signedInPerson(stack, 'holder');
    const stranger = await signedInPerson(stack, 'stranger');
    const strangersWorkspace = await createWorkspace(stack, stranger, 'Not yours');
    const { token, extension_token } = await issue(person);

    const me = await http(`${stack.url}/me`, { headers: bearer(token) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user: { id: person.userId } });

    const created = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      headers: bearer(token),
      body: { name: 'From the extension' },
    });
    expect(created.status).toBe(201);
    const workspaceId = (created.body as { workspace: { id: string } }).workspace.id;
    const tables = await http(`${stack.url}/tables?workspaceId=${workspaceId}`, {
      headers: bearer(token),
    });
    expect(tables.status).toBe(200);

    const foreign = await http(`${stack.url}/workspaces/${strangersWorkspace}/members`, {
      headers: bearer(token),
    });
    expect([403, 404]).toContain(foreign.status);

    const listed = await http(`${stack.url}/me/extension-tokens`, { cookie: person.cookie });
    const [entry] = (listed.body as { extension_tokens: Issued['extension_token'][] })
      .extension_tokens;
    expect(entry?.id).toBe(extension_token.id);
    expect(entry?.last_used_at).not.toBeNull();
  });

  test('routes that manage credentials or need an owner or an administrator refuse the bearer', async () => {
    const person = await signedInPerson(stack, 'refused');
    const workspaceId = await createWorkspace(stack, person, 'Mine');
    const { token } = await issue(person);
    const refused: [string, string, unknown?][] = [
      ['GET', '/me/extension-tokens'],
      ['POST', '/me/extension-tokens', { name: 'Another' }],
      ['POST', `/workspaces/${workspaceId}/api-keys`, { name: 'k' }],
      ['POST', `/workspaces/${workspaceId}/members`, { email: 'x@example.com', role: 'owner' }],
      ['DELETE', `/workspaces/${workspaceId}`],
      ['POST', `/workspaces/${workspaceId}/credits/grants`, { amount: 10 }],
    ];
    for (const [method, path, body] of refused) {
      const answer = await http(`${stack.url}${path}`, { method, headers: bearer(token), body });
      expect({ path, method, status: answer.status, body: answer.body }).toMatchObject({
        status: 401,
        body: { code: 'UNAUTHORIZED' },
      });
    }
    // ... and the bearer is the credential even beside the person's own valid cookie.
    const withCookie = await http(`${stack.url}/me/extension-tokens`, {
      cookie: person.cookie,
      headers: bearer(token),
    });
    expect(withCookie.status).toBe(401);

    const mcp = await http(`${stack.url}/mcp`, {
      method: 'POST',
      headers: { ...bearer(token), accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.status).toBe(401);
  });

  test('from another site a bearer alone is accepted, but a cookie beside it is refused (decision 118)', async () => {
    const person = await signedInPerson(stack, 'cross-site');
    const { token } = await issue(person);
    const foreign = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const bearerOnly = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      headers: { ...foreign, ...bearer(token) },
      body: { name: 'No ambient credential' },
    });
    expect(bearerOnly.status).toBe(201);
    const withCookie = await http(`${stack.url}/workspaces`, {
      method: 'POST',
      cookie: person.cookie,
      headers: { ...foreign, ...bearer(token) },
      body: { name: 'Riding the cookie' },
    });
    expect(withCookie.status).toBe(403);
    expect(withCookie.body).toMatchObject({ code: 'FORBIDDEN' });
  });

  test('a revoked token is refused from the next request on; only its holder can revoke it', async () => {
    const person = await signedInPerson(stack, 'revoker');
    const other = await signedInPerson(stack, 'other');
    const { token, extension_token } = await issue(person);
    expect((await http(`${stack.url}/me`, { headers: bearer(token) })).status).toBe(200);

    const byOther = await http(`${stack.url}/me/extension-tokens/${extension_token.id}`, {
      method: 'DELETE',
      cookie: other.cookie,
    });
    expect(byOther.status).toBe(404);
    expect((await http(`${stack.url}/me`, { headers: bearer(token) })).status).toBe(200);

    const revoked = await http(`${stack.url}/me/extension-tokens/${extension_token.id}`, {
      method: 'DELETE',
      cookie: person.cookie,
    });
    expect(revoked.status).toBe(204);
    const after = await http(`${stack.url}/me`, { headers: bearer(token) });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'Invalid extension token', code: 'UNAUTHORIZED' });
    const listed = await http(`${stack.url}/me/extension-tokens`, { cookie: person.cookie });
    expect(listed.body).toEqual({ extension_tokens: [] });
    const again = await http(`${stack.url}/me/extension-tokens/${extension_token.id}`, {
      method: 'DELETE',
      cookie: person.cookie,
    });
    expect(again.status).toBe(404);
  });

  test('an expired token → 401 SESSION_EXPIRED', async () => {
    const person = await signedInPerson(stack, 'expired');
    const { extension_token } = await issue(person);
    const issuedAt = new Date(Date.now() - (EXTENSION_TOKEN_LIFETIME_SECONDS + 3600) * 1000);
    const expired = await signExtensionToken(EXTENSION_TOKEN_ISSUER, {
      userId: person.userId,
      tokenId: extension_token.id,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + EXTENSION_TOKEN_LIFETIME_SECONDS * 1000),
    });
    const answer = await http(`${stack.url}/me`, { headers: bearer(expired) });
    expect(answer.status).toBe(401);
    expect(answer.body).toEqual({ error: 'Extension token has expired', code: 'SESSION_EXPIRED' });
  });

  test('forged, foreign and malformed bearers → 401 UNAUTHORIZED', async () => {
    const person = await signedInPerson(stack, 'forged');
    const { extension_token } = await issue(person);
    const now = new Date();
    const later = new Date(now.getTime() + 3_600_000);
    const claimsOf = (overrides: Record<string, unknown>) =>
      new SignJWT({ type: 'extension', ...overrides })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('wap-e2e')
        .setAudience('wap-e2e-extension')
        .setSubject(person.userId)
        .setJti(extension_token.id)
        .setIssuedAt()
        .setExpirationTime('1h');
    const sessionToken = (await stack.cookieFor('someone@example.com')).slice('session='.length);
    const bearers: [string, string][] = [
      [
        'signed with another secret',
        await signExtensionToken(
          { ...EXTENSION_TOKEN_ISSUER, secret: 'another-secret-that-is-long-enough-0123456789' },
          { userId: person.userId, tokenId: extension_token.id, issuedAt: now, expiresAt: later },
        ),
      ],
      [
        'the raw secret as the key (not the derived one)',
        await claimsOf({}).sign(new TextEncoder().encode(EXTENSION_TOKEN_ISSUER.secret)),
      ],
      ['the session secret', await claimsOf({}).sign(new TextEncoder().encode(SESSION_SECRET))],
      [
        'another issuer',
        await signExtensionToken(
          { ...EXTENSION_TOKEN_ISSUER, issuer: 'elsewhere' },
          { userId: person.userId, tokenId: extension_token.id, issuedAt: now, expiresAt: later },
        ),
      ],
      [
        'a record that was never issued',
        await signExtensionToken(EXTENSION_TOKEN_ISSUER, {
          userId: person.userId,
          tokenId: '00000000-0000-4000-8000-000000000000',
          issuedAt: now,
          expiresAt: later,
        }),
      ],
      [
        "another person's id on a genuine record",
        await signExtensionToken(EXTENSION_TOKEN_ISSUER, {
          userId: (await signedInPerson(stack, 'victim')).userId,
          tokenId: extension_token.id,
          issuedAt: now,
          expiresAt: later,
        }),
      ],
      ['a session token', sessionToken],
      ['not a JWT', 'abc.def.ghi'],
    ];
    for (const [label, token] of bearers) {
      const answer = await http(`${stack.url}/me`, { headers: bearer(token) });
      expect({ label, status: answer.status, body: answer.body }).toEqual({
        label,
        status: 401,
        body: { error: expect.any(String), code: 'UNAUTHORIZED' },
      });
    }
    const apiKey = await http(`${stack.url}/me`, { headers: bearer('sk_live_abcdefgh') });
    expect(apiKey.status).toBe(401);
  });

  test(`a person holds at most ${MAX_ACTIVE_EXTENSION_TOKENS} tokens at once`, async () => {
    const person = await signedInPerson(stack, 'many');
    const issued: Issued[] = [];
    for (let index = 0; index < MAX_ACTIVE_EXTENSION_TOKENS; index += 1) {
      issued.push(await issue(person, `Browser ${index}`));
    }
    const refused = await http(`${stack.url}/me/extension-tokens`, {
      method: 'POST',
      cookie: person.cookie,
      body: { name: 'One more' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'CONFLICT' });
    await http(`${stack.url}/me/extension-tokens/${issued[0]?.extension_token.id ?? ''}`, {
      method: 'DELETE',
      cookie: person.cookie,
    });
    await issue(person, 'One more');
  });
});
