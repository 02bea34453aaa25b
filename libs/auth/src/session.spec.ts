import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { AppError, type ErrorCode } from '@wap/contracts';
import { createSessionVerifier, mintSessionToken, type SessionVerifier } from './session';

const SECRET = 'a-development-secret-of-32-bytes!';
const ISSUER = 'https://id.example.test';
const AUDIENCE = 'workspace-assistant';

async function rejection(verifier: SessionVerifier, token: string): Promise<AppError> {
  const error: unknown = await verifier.verify(token).then(
    () => new Error('the token was accepted'),
    (failure: unknown) => failure,
  );
  if (!(error instanceof AppError)) throw error;
  return error;
}

async function expectRejected(
  verifier: SessionVerifier,
  token: string,
  code: ErrorCode,
  message: string,
): Promise<void> {
  const error = await rejection(verifier, token);
  expect({ code: error.code, message: error.message }).toEqual({ code, message });
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve(`http://127.0.0.1:${port}`);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.closeAllConnections();
    server.close((error) => (error ? reject(error) : resolve()));
  });
}

describe('secret (HS256) sessions', () => {
  const verifier = createSessionVerifier({
    mode: 'secret',
    secret: SECRET,
    issuer: ISSUER,
    audience: AUDIENCE,
  });
  const mint = (overrides: Partial<Parameters<typeof mintSessionToken>[0]> = {}) =>
    mintSessionToken({
      secret: SECRET,
      sub: 'user-1',
      email: 'ada@example.test',
      name: 'Ada',
      issuer: ISSUER,
      audience: AUDIENCE,
      ...overrides,
    });

  it('round-trips the claims of a minted token', async () => {
    const before = Math.floor(Date.now() / 1000);
    const claims = await verifier.verify(await mint({ expiresInSec: 600 }));
    expect(claims).toEqual({
      sub: 'user-1',
      email: 'ada@example.test',
      name: 'Ada',
      platformAdmin: false,
      exp: expect.any(Number),
      iat: expect.any(Number),
    });
    expect(claims.exp - before).toBeGreaterThanOrEqual(600);
    expect(claims.exp - before).toBeLessThanOrEqual(601);
  });

  it('grants platformAdmin only for a literal true claim', async () => {
    expect((await verifier.verify(await mint({ platformAdmin: true }))).platformAdmin).toBe(true);
    const stringClaim = await new SignJWT({ platform_admin: 'true' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('user-1')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(SECRET));
    expect(await verifier.verify(stringClaim)).toMatchObject({
      platformAdmin: false,
      email: '',
      name: '',
    });
  });

  it('answers SESSION_EXPIRED for a token past its expiry and tolerance', async () => {
    await expectRejected(
      verifier,
      await mint({ expiresInSec: -60 }),
      'SESSION_EXPIRED',
      'Session has expired',
    );
  });

  it('accepts a token expired by less than the clock tolerance', async () => {
    const claims = await verifier.verify(await mint({ expiresInSec: -2 }));
    expect(claims.sub).toBe('user-1');
  });

  const signedWithSecret = (claims: JWTPayload, secret = SECRET) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .sign(new TextEncoder().encode(secret));

  it.each<[string, () => Promise<string>]>([
    ['a bad signature', () => mint({ secret: 'another-secret-of-at-least-32-bytes' })],
    ['a wrong audience', () => mint({ audience: 'someone-else' })],
    ['a wrong issuer', () => mint({ issuer: 'https://evil.example.test' })],
    ['garbage', async () => 'not-a-jwt'],
    ['an empty token', async () => ''],
    ['a workspace API key', async () => 'sk_live_x'],
    ['a token without exp', () => signedWithSecret({ sub: 'user-1' })],
    ['a token without sub', () => signedWithSecret({ exp: Math.floor(Date.now() / 1000) + 60 })],
    [
      'a token whose email is not a string',
      () => signedWithSecret({ sub: 'user-1', email: 42, exp: Math.floor(Date.now() / 1000) + 60 }),
    ],
    [
      'an unsigned token (alg none)',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        const body = Buffer.from(
          JSON.stringify({ sub: 'user-1', iss: ISSUER, aud: AUDIENCE, exp: 9_999_999_999 }),
        ).toString('base64url');
        return `${header}.${body}.`;
      },
    ],
  ])('answers UNAUTHORIZED for %s', async (_case, token) => {
    await expectRejected(verifier, await token(), 'UNAUTHORIZED', 'Invalid session');
  });
});

describe('JWKS sessions', () => {
  const KID = 'key-1';
  let privateKey: CryptoKey;
  let server: Server;
  let baseUrl: string;
  let jwksRequests = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
    server = createServer((request, response) => {
      if (request.url === '/.well-known/jwks.json') {
        jwksRequests += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ keys: [publicJwk] }));
      } else if (request.url === '/broken/jwks.json') {
        response.writeHead(500).end('internal error');
      } else if (request.url === '/slow/jwks.json') {
        // Never answers: the verifier must give up on its own timeout.
      } else {
        response.writeHead(404).end();
      }
    });
    baseUrl = await listen(server);
  });

  afterAll(() => close(server));

  const verifierAt = (path: string, jwksTimeoutMs?: number) =>
    createSessionVerifier({
      mode: 'jwks',
      jwksUrl: `${baseUrl}${path}`,
      issuer: ISSUER,
      audience: AUDIENCE,
      jwksTimeoutMs,
    });

  const signRs256 = (
    options: { issuer?: string; audience?: string; kid?: string; key?: CryptoKey } = {},
  ) =>
    new SignJWT({ email: 'ada@example.test', name: 'Ada', platform_admin: true })
      .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? KID })
      .setSubject('user-1')
      .setIssuer(options.issuer ?? ISSUER)
      .setAudience(options.audience ?? AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(options.key ?? privateKey);

  it('verifies a token signed by a key the JWKS publishes, fetching the set once', async () => {
    const verifier = verifierAt('/.well-known/jwks.json');
    const requestsBefore = jwksRequests;
    const token = await signRs256();
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(await verifier.verify(token)).toEqual({
        sub: 'user-1',
        email: 'ada@example.test',
        name: 'Ada',
        platformAdmin: true,
        exp: expect.any(Number),
        iat: expect.any(Number),
      });
    }
    expect(jwksRequests - requestsBefore).toBe(1);
  });

  it.each<[string, () => Promise<string>]>([
    ['an issuer mismatch', () => signRs256({ issuer: 'https://evil.example.test' })],
    ['an audience mismatch', () => signRs256({ audience: 'someone-else' })],
    ['an unknown key id', () => signRs256({ kid: 'key-unknown' })],
    [
      'a key the JWKS does not publish',
      async () => signRs256({ key: (await generateKeyPair('RS256')).privateKey }),
    ],
    [
      'an HS256 token (algorithm confusion)',
      () =>
        mintSessionToken({
          secret: SECRET,
          sub: 'user-1',
          email: '',
          name: '',
          issuer: ISSUER,
          audience: AUDIENCE,
        }),
    ],
  ])('answers UNAUTHORIZED for %s', async (_case, token) => {
    await expectRejected(
      verifierAt('/.well-known/jwks.json'),
      await token(),
      'UNAUTHORIZED',
      'Invalid session',
    );
  });

  it('answers SERVICE_UNAVAILABLE when the JWKS endpoint refuses connections', async () => {
    const closed = createServer();
    const closedUrl = await listen(closed);
    await close(closed);
    const verifier = createSessionVerifier({
      mode: 'jwks',
      jwksUrl: `${closedUrl}/.well-known/jwks.json`,
      issuer: ISSUER,
      audience: AUDIENCE,
    });
    await expectRejected(
      verifier,
      await signRs256(),
      'SERVICE_UNAVAILABLE',
      'Session verification is unavailable',
    );
  });

  it('answers SERVICE_UNAVAILABLE when the JWKS endpoint fails', async () => {
    await expectRejected(
      verifierAt('/broken/jwks.json'),
      await signRs256(),
      'SERVICE_UNAVAILABLE',
      'Session verification is unavailable',
    );
  });

  it('answers SERVICE_UNAVAILABLE when the JWKS endpoint does not answer in time', async () => {
    const started = Date.now();
    await expectRejected(
      verifierAt('/slow/jwks.json', 200),
      await signRs256(),
      'SERVICE_UNAVAILABLE',
      'Session verification is unavailable',
    );
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('still refuses an API key without contacting the JWKS endpoint', async () => {
    const requestsBefore = jwksRequests;
    await expectRejected(
      verifierAt('/.well-known/jwks.json'),
      'sk_live_abc',
      'UNAUTHORIZED',
      'Invalid session',
    );
    expect(jwksRequests).toBe(requestsBefore);
  });
});
