import { randomBytes } from 'node:crypto';
import { decodeJwt, importJWK, jwtVerify, SignJWT } from 'jose';
import {
  BUS_GRANT_LIFETIME_SECONDS,
  createBusSigner,
  createBusVerifier,
  generateBusKeySet,
} from './bus-assertions';

// A token is a grant (compact JWS, EdDSA per RFC 8037) and an assertion (compact JWS, HS256
// under the grant's key) joined by `~`: `jose`, an independent implementation, must read what
// the signer writes, and the verifier what `jose` writes.
const keys = generateBusKeySet('spec');
const privateJwk = JSON.parse(keys.signingKeys.gateway) as Record<string, string>;
const publicJwk = (JSON.parse(keys.trustedKeys) as { keys: Record<string, string>[] }).keys.find(
  (key) => key['kid'] === 'gateway:spec',
);
const now = () => Math.floor(Date.now() / 1000);

async function joseGrant(
  macKey: Buffer,
  options: { audience?: string; iat?: number; exp?: number } = {},
): Promise<string> {
  const iat = options.iat ?? now();
  return new SignJWT({ key: macKey.toString('base64url') })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway:spec' })
    .setIssuer('gateway')
    .setAudience(options.audience ?? 'storage')
    .setIssuedAt(iat)
    .setExpirationTime(options.exp ?? iat + 600)
    .sign(await importJWK(privateJwk, 'EdDSA'));
}

function joseAssertion(macKey: Buffer, times: { iat: number; exp: number }): Promise<string> {
  return new SignJWT({ dig: 'digest' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('gateway')
    .setAudience('storage')
    .setIssuedAt(times.iat)
    .setExpirationTime(times.exp)
    .setJti(randomBytes(16).toString('base64url'))
    .sign(macKey);
}

describe('bus assertions', () => {
  test('what the signer writes, jose verifies: a grant under the gateway key, an assertion under its MAC key', async () => {
    const signer = await createBusSigner(keys.signingKeys.gateway);
    const token = await signer.sign({ audience: 'storage', digest: 'abc', requestId: 'r1' });
    const [grant = '', assertion = ''] = token.split('~');
    const granted = await jwtVerify(grant, await importJWK(publicJwk ?? {}, 'EdDSA'), {
      issuer: 'gateway',
      audience: 'storage',
      algorithms: ['EdDSA'],
    });
    expect(granted.protectedHeader).toEqual({ alg: 'EdDSA', kid: 'gateway:spec' });
    expect((granted.payload.exp ?? 0) - (granted.payload.iat ?? 0)).toBe(
      BUS_GRANT_LIFETIME_SECONDS,
    );
    const macKey = Buffer.from(String(granted.payload['key']), 'base64url');
    expect(macKey).toHaveLength(32);
    const { payload, protectedHeader } = await jwtVerify(assertion, macKey, {
      issuer: 'gateway',
      audience: 'storage',
      algorithms: ['HS256'],
    });
    expect(protectedHeader).toEqual({ alg: 'HS256' });
    expect(payload).toMatchObject({ dig: 'abc', rid: 'r1' });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(30);

    // One grant per audience, sent again until it nears its end; another audience, another key.
    const again = await signer.sign({ audience: 'storage', digest: 'def' });
    expect(again.split('~')[0]).toBe(grant);
    const elsewhere = (await signer.sign({ audience: 'chat', digest: 'abc' })).split('~')[0] ?? '';
    expect(decodeJwt(elsewhere)['key']).not.toBe(granted.payload['key']);
  });

  test('what jose writes, the verifier takes; a changed byte, another algorithm or a long life it refuses', async () => {
    const verifier = await createBusVerifier(keys.trustedKeys, { now: () => Date.now() });
    const macKey = randomBytes(32);
    const grant = await joseGrant(macKey);
    const valid = await joseAssertion(macKey, { iat: now(), exp: now() + 30 });
    await expect(verifier.verify(`${grant}~${valid}`, 'storage')).resolves.toMatchObject({
      principal: 'gateway',
      digest: 'digest',
    });

    const [header, payload, mac] = (
      await joseAssertion(macKey, { iat: now(), exp: now() + 30 })
    ).split('.');
    const altered = Buffer.from(payload ?? '', 'base64url')
      .toString()
      .replace('digest', 'digesT');
    await expect(
      verifier.verify(
        `${grant}~${header}.${Buffer.from(altered).toString('base64url')}.${mac}`,
        'storage',
      ),
    ).rejects.toMatchObject({ reason: 'bad_signature' });
    const none = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
    await expect(verifier.verify(`${grant}~${none}.${payload}.`, 'storage')).rejects.toMatchObject({
      reason: 'malformed',
    });
    const longLived = await joseAssertion(macKey, { iat: now(), exp: now() + 3600 });
    await expect(verifier.verify(`${grant}~${longLived}`, 'storage')).rejects.toMatchObject({
      reason: 'expired',
    });
    await expect(verifier.verify('not.a.token', 'storage')).rejects.toMatchObject({
      reason: 'malformed',
    });
  });

  test('a grant is only as good as its signature, its audience and its life', async () => {
    const verifier = await createBusVerifier(keys.trustedKeys, { now: () => Date.now() });
    const macKey = randomBytes(32);
    const assertion = () => joseAssertion(macKey, { iat: now(), exp: now() + 30 });

    // A grant whose payload names another key than the one signed.
    const [grantHeader, , grantSignature] = (await joseGrant(macKey)).split('.');
    const swapped = Buffer.from(
      JSON.stringify({
        ...decodeJwt(await joseGrant(macKey)),
        key: randomBytes(32).toString('base64url'),
      }),
    ).toString('base64url');
    await expect(
      verifier.verify(
        `${grantHeader}.${swapped}.${grantSignature}~${await assertion()}`,
        'storage',
      ),
    ).rejects.toMatchObject({ reason: 'bad_signature' });

    // A valid grant, and an assertion under a key of the attacker's choosing.
    const grant = await joseGrant(macKey);
    const foreign = await joseAssertion(randomBytes(32), { iat: now(), exp: now() + 30 });
    await expect(verifier.verify(`${grant}~${foreign}`, 'storage')).rejects.toMatchObject({
      reason: 'bad_signature',
    });
    // Meant for storage, presented to chat.
    await expect(verifier.verify(`${grant}~${await assertion()}`, 'chat')).rejects.toMatchObject({
      reason: 'audience',
    });
    // A grant that lives longer than ten minutes, or has ended.
    const endless = await joseGrant(macKey, { exp: now() + 86_400 });
    await expect(
      verifier.verify(`${endless}~${await assertion()}`, 'storage'),
    ).rejects.toMatchObject({ reason: 'expired' });
    const ended = await joseGrant(macKey, { iat: now() - 700, exp: now() - 100 });
    await expect(verifier.verify(`${ended}~${await assertion()}`, 'storage')).rejects.toMatchObject(
      { reason: 'expired' },
    );
    // An assertion that would outlive its grant.
    const ending = await joseGrant(macKey, { iat: now() - 590, exp: now() + 10 });
    await expect(
      verifier.verify(`${ending}~${await assertion()}`, 'storage'),
    ).rejects.toMatchObject({ reason: 'expired' });
  });

  test('a grant verified once is refused once it has ended', async () => {
    let clock = Date.now();
    const verifier = await createBusVerifier(keys.trustedKeys, { now: () => clock });
    const signer = await createBusSigner(keys.signingKeys.gateway);
    const first = await signer.sign({ audience: 'storage', digest: 'one' });
    await expect(verifier.verify(first, 'storage')).resolves.toMatchObject({ digest: 'one' });
    clock += (BUS_GRANT_LIFETIME_SECONDS + 60) * 1000;
    await expect(verifier.verify(first, 'storage')).rejects.toMatchObject({ reason: 'expired' });
  });
});
