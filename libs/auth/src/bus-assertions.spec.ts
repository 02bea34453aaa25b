import { randomBytes } from 'node:crypto';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { createBusSigner, createBusVerifier, generateBusKeySet } from './bus-assertions';

// The assertions are compact JWS (RFC 7515, EdDSA per RFC 8037): `jose`, an independent
// implementation, must read what the signer writes, and the verifier what `jose` writes.
const keys = generateBusKeySet('spec');
const privateJwk = JSON.parse(keys.signingKeys.gateway) as Record<string, string>;
const publicJwk = (JSON.parse(keys.trustedKeys) as { keys: Record<string, string>[] }).keys.find(
  (key) => key['kid'] === 'gateway:spec',
);

const joseAssertion = (claims: Record<string, unknown>, times: { iat: number; exp: number }) =>
  importJWK(privateJwk, 'EdDSA').then((key) =>
    new SignJWT({ dig: 'digest', ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway:spec' })
      .setIssuer('gateway')
      .setAudience('storage')
      .setIssuedAt(times.iat)
      .setExpirationTime(times.exp)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(key),
  );

describe('bus assertions', () => {
  const now = () => Math.floor(Date.now() / 1000);

  test('what the signer writes, jose verifies, with the claims decision 112 names', async () => {
    const signer = await createBusSigner(keys.signingKeys.gateway);
    const token = await signer.sign({ audience: 'storage', digest: 'abc', requestId: 'r1' });
    const { payload, protectedHeader } = await jwtVerify(
      token,
      await importJWK(publicJwk ?? {}, 'EdDSA'),
      { issuer: 'gateway', audience: 'storage', algorithms: ['EdDSA'] },
    );
    expect(protectedHeader).toEqual({ alg: 'EdDSA', kid: 'gateway:spec' });
    expect(payload).toMatchObject({ dig: 'abc', rid: 'r1' });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(30);
  });

  test('what jose writes, the verifier takes; a changed byte, another algorithm or a long life it refuses', async () => {
    const verifier = await createBusVerifier(keys.trustedKeys, { now: () => Date.now() });
    const valid = await joseAssertion({}, { iat: now(), exp: now() + 30 });
    await expect(verifier.verify(valid, 'storage')).resolves.toMatchObject({
      principal: 'gateway',
      digest: 'digest',
    });
    const [header, payload, signature] = (
      await joseAssertion({}, { iat: now(), exp: now() + 30 })
    ).split('.');
    const altered = Buffer.from(payload ?? '', 'base64url')
      .toString()
      .replace('digest', 'digesT');
    await expect(
      verifier.verify(
        `${header}.${Buffer.from(altered).toString('base64url')}.${signature}`,
        'storage',
      ),
    ).rejects.toMatchObject({ reason: 'bad_signature' });
    const none = Buffer.from(JSON.stringify({ alg: 'none', kid: 'gateway:spec' })).toString(
      'base64url',
    );
    await expect(verifier.verify(`${none}.${payload}.`, 'storage')).rejects.toMatchObject({
      reason: 'malformed',
    });
    const longLived = await joseAssertion({}, { iat: now(), exp: now() + 3600 });
    await expect(verifier.verify(longLived, 'storage')).rejects.toMatchObject({
      reason: 'expired',
    });
    await expect(verifier.verify('not.a.token', 'storage')).rejects.toMatchObject({
      reason: 'malformed',
    });
  });
});
