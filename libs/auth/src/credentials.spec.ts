import {
  CredentialError,
  generateCredentialKey,
  openSecret,
  parseCredentialKeys,
  rewrapSecret,
  sealSecret,
  sealedKeyId,
} from './credentials';

const OLD = generateCredentialKey('k2025');
const NEW = generateCredentialKey('k2026');
const CONTEXT = 'workspace-1/server-1/secret';
/** First byte after the 12-byte iv: inside the encrypted body. */
const IV_OFFSET = 12;

describe('credential envelope encryption', () => {
  test('a sealed value opens with its context and never contains the plaintext', () => {
    const keyring = parseCredentialKeys(NEW);
    const sealed = sealSecret(keyring, 'sk-live-very-secret', CONTEXT);
    expect(sealed).not.toContain('sk-live-very-secret');
    expect(Buffer.from(sealed.split('.')[3] ?? '', 'base64url').toString('utf8')).not.toContain(
      'very-secret',
    );
    expect(sealedKeyId(sealed)).toBe('k2026');
    expect(openSecret(keyring, sealed, CONTEXT)).toBe('sk-live-very-secret');
  });

  test('the same plaintext seals differently each time (fresh data key and iv)', () => {
    const keyring = parseCredentialKeys(NEW);
    expect(sealSecret(keyring, 'x', CONTEXT)).not.toBe(sealSecret(keyring, 'x', CONTEXT));
  });

  test('a value moved to another record or field does not open', () => {
    const keyring = parseCredentialKeys(NEW);
    const sealed = sealSecret(keyring, 'secret', CONTEXT);
    expect(() => openSecret(keyring, sealed, 'workspace-1/server-2/secret')).toThrow(
      CredentialError,
    );
  });

  test('a tampered ciphertext does not open', () => {
    const keyring = parseCredentialKeys(NEW);
    const parts = sealSecret(keyring, 'secret', CONTEXT).split('.');
    const body = Buffer.from(parts[3] ?? '', 'base64url');
    body[IV_OFFSET] = (body[IV_OFFSET] ?? 0) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => openSecret(keyring, parts.join('.'), CONTEXT)).toThrow(CredentialError);
  });

  test('rotation: old values open after a new key is added first, and rewrap moves them to it', () => {
    const before = parseCredentialKeys(OLD);
    const sealed = sealSecret(before, 'secret', CONTEXT);
    const after = parseCredentialKeys(`${NEW},${OLD}`);
    expect(openSecret(after, sealed, CONTEXT)).toBe('secret');
    expect(sealedKeyId(sealSecret(after, 'other', CONTEXT))).toBe('k2026');

    const rewrapped = rewrapSecret(after, sealed, CONTEXT);
    expect(sealedKeyId(rewrapped)).toBe('k2026');
    expect(rewrapped.split('.')[3]).toBe(sealed.split('.')[3]);
    expect(openSecret(parseCredentialKeys(NEW), rewrapped, CONTEXT)).toBe('secret');
    expect(() => openSecret(parseCredentialKeys(NEW), sealed, CONTEXT)).toThrow(
      'Credential key k2025 is not configured',
    );
  });

  test.each([
    ['', 'No credential encryption key configured'],
    ['nokey', 'Credential key #1 needs an id: kid:base64key'],
    ['k1:c2hvcnQ=', 'Credential key k1 must hold at least 32 bytes'],
    [`${NEW},${NEW}`, 'Credential key id k2026 is repeated'],
  ])('refuses the key list %j', (spec, message) => {
    expect(() => parseCredentialKeys(spec)).toThrow(message);
  });
});
