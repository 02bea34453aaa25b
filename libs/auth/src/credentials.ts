import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of stored credentials (MCP server secrets and headers).
 *
 * Each sealed value has its own random data key (AES-256-GCM); the data key is wrapped by a
 * key-encryption key (KEK) named by a key id, so rotating the KEK re-wraps data keys only. Both
 * layers are bound (AAD) to a caller-given context, e.g. `workspace/server/field`: a ciphertext
 * copied to another record or field does not decrypt.
 */

/** One key-encryption key: its id (stored beside each wrapped data key) and its 32 bytes. */
export interface CredentialKey {
  id: string;
  key: Buffer;
}

/** Every known KEK; `current` (the first one configured) seals new values. */
export interface CredentialKeyring {
  current: CredentialKey;
  byId: ReadonlyMap<string, CredentialKey>;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Key material shorter than this is refused: it would be guessable. */
const MIN_KEY_MATERIAL_BYTES = 32;
const SEALED_PREFIX = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A configuration or ciphertext problem; the message never carries key material or plaintext. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}

/**
 * Parses `CREDENTIALS_ENCRYPTION_KEYS`: `kid:base64key,kid:base64key`, newest first. Each key's
 * material (base64 or base64url, at least 32 bytes) is stretched with HKDF-SHA256 into the
 * 32-byte KEK, so generated secrets of any sufficient length can be used as they are.
 */
export function parseCredentialKeys(spec: string): CredentialKeyring {
  const entries = spec
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new CredentialError('No credential encryption key configured');
  const keys: CredentialKey[] = entries.map((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator > 0 ? entry.slice(0, separator) : '';
    if (!KEY_ID.test(id)) {
      throw new CredentialError(`Credential key #${index + 1} needs an id: kid:base64key`);
    }
    const material = Buffer.from(entry.slice(separator + 1), 'base64');
    if (material.length < MIN_KEY_MATERIAL_BYTES) {
      throw new CredentialError(`Credential key ${id} must hold at least 32 bytes`);
    }
    const key = Buffer.from(hkdfSync('sha256', material, id, 'wap credential kek', 32));
    return { id, key };
  });
  const byId = new Map<string, CredentialKey>();
  for (const key of keys) {
    if (byId.has(key.id)) throw new CredentialError(`Credential key id ${key.id} is repeated`);
    byId.set(key.id, key);
  }
  return { current: keys[0] as CredentialKey, byId };
}

function encrypt(key: Buffer, plaintext: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function decrypt(key: Buffer, sealed: Buffer, aad: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new CredentialError('Sealed value is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new CredentialError('Sealed value does not decrypt with its key and context');
  }
}

interface SealedParts {
  keyId: string;
  wrappedKey: Buffer;
  ciphertext: Buffer;
}

function parseSealed(sealed: string): SealedParts {
  const [version, keyId, wrappedKey, ciphertext, ...rest] = sealed.split('.');
  if (version !== SEALED_PREFIX || !keyId || !wrappedKey || !ciphertext || rest.length > 0) {
    throw new CredentialError('Not a sealed credential');
  }
  return {
    keyId,
    wrappedKey: Buffer.from(wrappedKey, 'base64url'),
    ciphertext: Buffer.from(ciphertext, 'base64url'),
  };
}

function format(parts: SealedParts): string {
  return [
    SEALED_PREFIX,
    parts.keyId,
    parts.wrappedKey.toString('base64url'),
    parts.ciphertext.toString('base64url'),
  ].join('.');
}

function kekFor(keyring: CredentialKeyring, keyId: string): CredentialKey {
  const kek = keyring.byId.get(keyId);
  if (!kek) throw new CredentialError(`Credential key ${keyId} is not configured`);
  return kek;
}

/** Wrapped data keys are bound to the context and to the KEK's id. */
function wrapContext(context: string, keyId: string): string {
  return `${context}#${keyId}`;
}

/** Encrypts `plaintext` for `context` under a fresh data key wrapped by the newest KEK. */
export function sealSecret(keyring: CredentialKeyring, plaintext: string, context: string): string {
  const dataKey = randomBytes(32);
  const { id, key } = keyring.current;
  return format({
    keyId: id,
    wrappedKey: encrypt(key, dataKey, wrapContext(context, id)),
    ciphertext: encrypt(dataKey, Buffer.from(plaintext, 'utf8'), context),
  });
}

/** Decrypts a value sealed for `context` with any configured KEK. */
export function openSecret(keyring: CredentialKeyring, sealed: string, context: string): string {
  const parts = parseSealed(sealed);
  const kek = kekFor(keyring, parts.keyId);
  const dataKey = decrypt(kek.key, parts.wrappedKey, wrapContext(context, parts.keyId));
  return decrypt(dataKey, parts.ciphertext, context).toString('utf8');
}

/** The id of the KEK that wraps a sealed value's data key. */
export function sealedKeyId(sealed: string): string {
  return parseSealed(sealed).keyId;
}

/**
 * Rotation: re-wraps the value's data key under the newest KEK, leaving the ciphertext as it
 * is. Returns the value unchanged when it already uses the newest KEK.
 */
export function rewrapSecret(keyring: CredentialKeyring, sealed: string, context: string): string {
  const parts = parseSealed(sealed);
  if (parts.keyId === keyring.current.id) return sealed;
  const kek = kekFor(keyring, parts.keyId);
  const dataKey = decrypt(kek.key, parts.wrappedKey, wrapContext(context, parts.keyId));
  const { id, key } = keyring.current;
  return format({
    keyId: id,
    wrappedKey: encrypt(key, dataKey, wrapContext(context, id)),
    ciphertext: parts.ciphertext,
  });
}

/** A fresh `kid:base64key` entry for CREDENTIALS_ENCRYPTION_KEYS. */
export function generateCredentialKey(id: string): string {
  if (!KEY_ID.test(id)) throw new CredentialError('Invalid credential key id');
  return `${id}:${randomBytes(32).toString('base64')}`;
}
