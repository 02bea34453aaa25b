import { createHmac, randomUUID } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { signExtensionToken, verifyExtensionToken } from './extension-tokens';

const issuer = { secret: 'a-secret-of-the-platform-long-enough-0123456789', issuer: 'acme' };
const userId = randomUUID();
const tokenId = randomUUID();
const issuedAt = new Date('2026-11-01T10:00:00Z');
const expiresAt = new Date('2026-12-01T10:00:00Z');
const derivedKey = createHmac('sha256', issuer.secret).update('wap-extension-token').digest();

test('a token says type, issuer, audience, person, record and its expiry, and verifies', async () => {
  const token = await signExtensionToken(issuer, { userId, tokenId, issuedAt, expiresAt });
  expect(decodeJwt(token)).toEqual({
    type: 'extension',
    iss: 'acme',
    aud: 'acme-extension',
    sub: userId,
    jti: tokenId,
    iat: issuedAt.getTime() / 1000,
    exp: expiresAt.getTime() / 1000,
  });
  expect(await verifyExtensionToken(issuer, token, new Date('2026-11-20T00:00:00Z'))).toEqual({
    valid: true,
    userId,
    tokenId,
  });
});

test('past its expiry a genuine token is expired; a forged expired one is only invalid', async () => {
  const token = await signExtensionToken(issuer, { userId, tokenId, issuedAt, expiresAt });
  const later = new Date('2026-12-02T00:00:00Z');
  expect(await verifyExtensionToken(issuer, token, later)).toEqual({
    valid: false,
    reason: 'expired',
  });
  const forged = await signExtensionToken(
    { ...issuer, secret: 'someone-else-s-secret-long-enough-0123456789' },
    { userId, tokenId, issuedAt, expiresAt },
  );
  expect(await verifyExtensionToken(issuer, forged, later)).toEqual({
    valid: false,
    reason: 'invalid',
  });
});

test.each([
  ['another type', { type: 'session' }, 'acme-extension'],
  ['no type', {}, 'acme-extension'],
  ['the audience of sessions', { type: 'extension' }, 'acme'],
])('a token of %s under the right key is invalid', async (_label, claims, audience) => {
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('acme')
    .setAudience(audience)
    .setSubject(userId)
    .setJti(tokenId)
    .setIssuedAt(issuedAt.getTime() / 1000)
    .setExpirationTime(expiresAt.getTime() / 1000)
    .sign(derivedKey);
  expect(await verifyExtensionToken(issuer, token, new Date('2026-11-20T00:00:00Z'))).toEqual({
    valid: false,
    reason: 'invalid',
  });
});

test('alg none is refused', async () => {
  const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
  const payload = Buffer.from(
    JSON.stringify({
      type: 'extension',
      iss: 'acme',
      aud: 'acme-extension',
      sub: userId,
      jti: tokenId,
      iat: 1,
      exp: 4_000_000_000,
    }),
  ).toString('base64url');
  expect(await verifyExtensionToken(issuer, `${header}.${payload}.`, new Date())).toEqual({
    valid: false,
    reason: 'invalid',
  });
});
