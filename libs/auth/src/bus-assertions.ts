import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import { Actor, BUS_PRINCIPALS, isBusPrincipal, type BusPrincipal } from '@wap/contracts';

/**
 * Signed bus assertions (decision 112, made cheap by decision 115): who is asking, for which
 * service, about which bytes. Every signer holds an Ed25519 key of its own whose `kid` names it
 * (`<principal>:<version>`); every service holds the public keys of all signers, so no service
 * can mint another's assertion, and only the gateway and the operators' CLI can name a person.
 *
 * A token is two compact JWS (RFC 7515) joined by `~`:
 * - a **grant**, `alg: EdDSA` (RFC 8037) under the signer's kid, that names the signer, the
 *   audience and a fresh 256-bit MAC key, for ten minutes. The signer makes one per audience and
 *   sends it on every request; each verifier checks its signature once and keeps it.
 * - an **assertion**, `alg: HS256` under the grant's key, with the request's claims.
 * So a request costs one HMAC on each side, not an Ed25519 signature and a verification, and
 * only the holder of a trusted private key can start a grant. Both are the format `jose` reads
 * and writes (the security suite forges its attacks with `jose`).
 */
const GRANT_ALGORITHM = 'EdDSA';
const ASSERTION_ALGORITHM = 'HS256';
const TOKEN_SEPARATOR = '~';
/** Between a message signature's kid and its signature; a kid is `<principal>:<version>`. */
const MESSAGE_SIGNATURE_SEPARATOR = '.';
/** Long enough for a request to cross a busy bus, short enough that a copy is soon worthless. */
export const BUS_ASSERTION_LIFETIME_SECONDS = 30;
/** How long a grant's MAC key signs assertions: one Ed25519 verification per signer and audience in that time. */
export const BUS_GRANT_LIFETIME_SECONDS = 600;
/** Clock difference between two pods tolerated when checking `iat` and `exp`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Verified grants a verifier keeps: a few per signing replica and audience in use. */
const GRANT_CACHE_LIMIT = 4096;
/** Principals whose assertions may name a signed-in person (and the platform-admin flag). */
const USER_SIGNERS: ReadonlySet<BusPrincipal> = new Set(['gateway', 'operator']);

const GrantHeader = z.object({ alg: z.literal(GRANT_ALGORITHM), kid: z.string() });
const AssertionHeader = z.object({ alg: z.literal(ASSERTION_ALGORITHM) });

const GrantClaims = z.object({
  iss: z.string(),
  aud: z.string(),
  iat: z.number().int(),
  exp: z.number().int(),
  /** The MAC key of the grant's assertions, base64url. */
  key: z.string().length(43),
});

const AssertionClaims = z.object({
  iss: z.string(),
  aud: z.string(),
  iat: z.number().int(),
  exp: z.number().int(),
  jti: z.string().min(16),
  rid: z.string().optional(),
  /** SHA-256 (base64url) of the request's bytes and bound headers: the assertion covers them. */
  dig: z.string(),
  usr: Actor.optional(),
});

/** What a verified assertion says. */
export interface VerifiedAssertion {
  principal: BusPrincipal;
  audience: string;
  digest: string;
  requestId?: string;
  user?: Actor;
}

export type BusAssertionRefusal =
  | 'missing'
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'expired'
  | 'audience'
  | 'replayed'
  | 'user_not_allowed';

/** Why an assertion was refused; the reason is a label, never the assertion's contents. */
export class BusAssertionError extends Error {
  constructor(readonly reason: BusAssertionRefusal) {
    super(`bus assertion refused: ${reason}`);
    this.name = 'BusAssertionError';
  }
}

export interface BusAssertionClaims {
  audience: string;
  digest: string;
  requestId?: string;
  user?: Actor;
}

export interface BusSigner {
  readonly principal: BusPrincipal;
  sign(claims: BusAssertionClaims): Promise<string>;
  /**
   * A signature of a stream message's bytes (`<kid>.<Ed25519 signature>`), for its consumer to
   * know who published it. It does not expire: a message may wait in its stream for days, and a
   * redelivery or a dead letter's replay is the same message.
   */
  signMessage(data: Uint8Array): string;
}

export interface BusVerifier {
  /** Verifies an assertion meant for `audience`; refuses a copy of one already seen. */
  verify(token: string | undefined, audience: string): Promise<VerifiedAssertion>;
  /** Who signed these message bytes; refuses a missing, unknown or wrong signature. */
  verifyMessage(signature: string | undefined, data: Uint8Array): BusPrincipal;
}

const PrivateJwk = z.looseObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  d: z.string(),
  x: z.string(),
  kid: z.string(),
});
const PublicJwk = z.looseObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string(),
  kid: z.string(),
});
const PublicJwks = z.object({ keys: z.array(PublicJwk).min(1) });

function principalOfKid(kid: string): BusPrincipal | undefined {
  const principal = kid.split(':')[0] ?? '';
  return isBusPrincipal(principal) ? principal : undefined;
}

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const ENCODED_ASSERTION_HEADER = base64url(JSON.stringify({ alg: ASSERTION_ALGORITHM }));

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new BusAssertionError('malformed');
  }
}

function splitJws(token: string): [string, string, string] {
  const parts = token.split('.');
  if (parts.length !== 3) throw new BusAssertionError('malformed');
  return parts as [string, string, string];
}

const macOf = (key: Buffer, signingInput: string) =>
  createHmac('sha256', key).update(signingInput).digest();

/** A signer from `BUS_SIGNING_KEY` (a private Ed25519 JWK whose kid names its principal). */
export async function createBusSigner(privateJwkJson: string): Promise<BusSigner> {
  const jwk = PrivateJwk.parse(JSON.parse(privateJwkJson));
  const principal = principalOfKid(jwk.kid);
  if (!principal) throw new Error(`BUS_SIGNING_KEY's kid ${jwk.kid} names no bus principal`);
  const { kid, ...keyPart } = jwk;
  const privateKey = createPrivateKey({ key: keyPart as JsonWebKey, format: 'jwk' });
  const mayNameUsers = USER_SIGNERS.has(principal);
  const encodedGrantHeader = base64url(JSON.stringify({ alg: GRANT_ALGORITHM, kid }));
  // Assertion ids: a random prefix per signer and a counter, unique without a random draw per
  // request (the draw was 3 % of the gateway's busy time in bench:gateway's profile).
  const jtiPrefix = randomBytes(12).toString('base64url');
  let issued = 0;
  const grants = new Map<string, { token: string; key: Buffer; expiresAt: number }>();

  /** The audience's current grant, renewed while every assertion it signs can outlive it no longer. */
  function grantFor(audience: string, nowSeconds: number) {
    const current = grants.get(audience);
    if (current && current.expiresAt - BUS_ASSERTION_LIFETIME_SECONDS > nowSeconds) return current;
    const key = randomBytes(32);
    const expiresAt = nowSeconds + BUS_GRANT_LIFETIME_SECONDS;
    const payload = base64url(
      JSON.stringify({
        iss: principal,
        aud: audience,
        iat: nowSeconds,
        exp: expiresAt,
        key: key.toString('base64url'),
      }),
    );
    const signingInput = `${encodedGrantHeader}.${payload}`;
    const token = `${signingInput}.${base64url(sign(null, Buffer.from(signingInput), privateKey))}`;
    const grant = { token, key, expiresAt };
    grants.set(audience, grant);
    return grant;
  }

  return {
    principal,
    async sign(claims) {
      if (claims.user && !mayNameUsers) {
        throw new Error(`${principal} cannot sign for a person: only the gateway can`);
      }
      const issuedAt = Math.floor(Date.now() / 1000);
      const grant = grantFor(claims.audience, issuedAt);
      const payload = base64url(
        JSON.stringify({
          iss: principal,
          aud: claims.audience,
          iat: issuedAt,
          exp: issuedAt + BUS_ASSERTION_LIFETIME_SECONDS,
          jti: `${jtiPrefix}${(issued += 1).toString(36)}`,
          dig: claims.digest,
          ...(claims.requestId ? { rid: claims.requestId } : {}),
          ...(claims.user ? { usr: claims.user } : {}),
        }),
      );
      const signingInput = `${ENCODED_ASSERTION_HEADER}.${payload}`;
      const mac = base64url(macOf(grant.key, signingInput));
      return `${grant.token}${TOKEN_SEPARATOR}${signingInput}.${mac}`;
    },
    signMessage(data) {
      return `${kid}${MESSAGE_SIGNATURE_SEPARATOR}${base64url(sign(null, data, privateKey))}`;
    },
  };
}

interface VerifiedGrant {
  principal: BusPrincipal;
  audience: string;
  key: Buffer;
  expiresAt: number;
}

/**
 * A verifier from `BUS_TRUSTED_KEYS` (a JWKS of every signer's public key). `now` is the
 * wall-clock time in milliseconds.
 */
/* eslint-disable-next-line max-lines-per-function --
  the verifier's short checks share the key set and the replay cache */
export async function createBusVerifier(
  trustedJwksJson: string,
  options: { now: () => number },
): Promise<BusVerifier> {
  const jwks = PublicJwks.parse(JSON.parse(trustedJwksJson));
  const keys = new Map<string, { principal: BusPrincipal; key: KeyObject }>();
  for (const jwk of jwks.keys) {
    const principal = principalOfKid(jwk.kid);
    if (!principal) throw new Error(`BUS_TRUSTED_KEYS: kid ${jwk.kid} names no bus principal`);
    const { kty, crv, x } = jwk;
    keys.set(jwk.kid, {
      principal,
      key: createPublicKey({ key: { kty, crv, x }, format: 'jwk' }),
    });
  }
  // Grants whose signature verified, by their token; only a trusted key's holder adds one.
  const grants = new Map<string, VerifiedGrant>();
  // Assertion ids seen and when they expire, oldest first: a copy is refused until then.
  const seen = new Map<string, number>();
  const forgetExpired = (nowSeconds: number) => {
    for (const [jti, expiresAt] of seen) {
      if (expiresAt + CLOCK_TOLERANCE_SECONDS >= nowSeconds) break;
      seen.delete(jti);
    }
  };
  const isCurrent = (iat: number, exp: number, lifetime: number, nowSeconds: number) =>
    exp + CLOCK_TOLERANCE_SECONDS >= nowSeconds &&
    iat - CLOCK_TOLERANCE_SECONDS <= nowSeconds &&
    exp - iat <= lifetime;

  function verifiedGrant(token: string, nowSeconds: number): VerifiedGrant {
    const kept = grants.get(token);
    if (kept) return kept;
    const [encodedHeader, encodedPayload, signature] = splitJws(token);
    const header = GrantHeader.safeParse(decodeJson(encodedHeader));
    if (!header.success) throw new BusAssertionError('malformed');
    const known = keys.get(header.data.kid);
    if (!known) throw new BusAssertionError('unknown_key');
    const signed = verify(
      null,
      Buffer.from(`${encodedHeader}.${encodedPayload}`),
      known.key,
      Buffer.from(signature, 'base64url'),
    );
    if (!signed) throw new BusAssertionError('bad_signature');
    const claims = GrantClaims.safeParse(decodeJson(encodedPayload));
    if (!claims.success) throw new BusAssertionError('malformed');
    const { iss, aud, iat, exp, key } = claims.data;
    // The key names its holder: a key of chat's cannot sign as the gateway.
    if (iss !== known.principal) throw new BusAssertionError('bad_signature');
    if (!isCurrent(iat, exp, BUS_GRANT_LIFETIME_SECONDS, nowSeconds)) {
      throw new BusAssertionError('expired');
    }
    const grant = {
      principal: known.principal,
      audience: aud,
      key: Buffer.from(key, 'base64url'),
      expiresAt: exp,
    };
    if (grants.size >= GRANT_CACHE_LIMIT) {
      for (const [cached, { expiresAt }] of grants) {
        if (expiresAt + CLOCK_TOLERANCE_SECONDS < nowSeconds) grants.delete(cached);
      }
      const oldest = grants.keys().next();
      if (grants.size >= GRANT_CACHE_LIMIT && !oldest.done) grants.delete(oldest.value);
    }
    grants.set(token, grant);
    return grant;
  }

  return {
    verifyMessage(signature, data) {
      if (!signature) throw new BusAssertionError('missing');
      const separator = signature.lastIndexOf(MESSAGE_SIGNATURE_SEPARATOR);
      if (separator < 0) throw new BusAssertionError('malformed');
      const known = keys.get(signature.slice(0, separator));
      if (!known) throw new BusAssertionError('unknown_key');
      const signed = verify(
        null,
        data,
        known.key,
        Buffer.from(signature.slice(separator + 1), 'base64url'),
      );
      if (!signed) throw new BusAssertionError('bad_signature');
      return known.principal;
    },
    async verify(token, audience) {
      if (!token) throw new BusAssertionError('missing');
      const separator = token.indexOf(TOKEN_SEPARATOR);
      if (separator < 0) throw new BusAssertionError('malformed');
      const nowSeconds = Math.floor(options.now() / 1000);
      const grant = verifiedGrant(token.slice(0, separator), nowSeconds);
      if (grant.expiresAt + CLOCK_TOLERANCE_SECONDS < nowSeconds) {
        throw new BusAssertionError('expired');
      }
      if (grant.audience !== audience) throw new BusAssertionError('audience');

      const [encodedHeader, encodedPayload, mac] = splitJws(token.slice(separator + 1));
      if (encodedHeader !== ENCODED_ASSERTION_HEADER) {
        const header = AssertionHeader.safeParse(decodeJson(encodedHeader));
        if (!header.success) throw new BusAssertionError('malformed');
      }
      const expected = macOf(grant.key, `${encodedHeader}.${encodedPayload}`);
      const presented = Buffer.from(mac, 'base64url');
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        throw new BusAssertionError('bad_signature');
      }
      const claims = AssertionClaims.safeParse(decodeJson(encodedPayload));
      if (!claims.success) throw new BusAssertionError('malformed');
      const { iss, aud, iat, exp, jti, dig, rid, usr } = claims.data;
      if (iss !== grant.principal) throw new BusAssertionError('bad_signature');
      if (
        !isCurrent(iat, exp, BUS_ASSERTION_LIFETIME_SECONDS, nowSeconds) ||
        exp > grant.expiresAt
      ) {
        throw new BusAssertionError('expired');
      }
      if (aud !== audience) throw new BusAssertionError('audience');
      if (usr && !USER_SIGNERS.has(grant.principal)) {
        throw new BusAssertionError('user_not_allowed');
      }
      forgetExpired(nowSeconds);
      if (seen.has(jti)) throw new BusAssertionError('replayed');
      seen.set(jti, exp);
      return { principal: grant.principal, audience: aud, digest: dig, requestId: rid, user: usr };
    },
  };
}

/** A development or test key set: one signing key per principal and the JWKS of all of them. */
export interface BusKeySet {
  signingKeys: Record<BusPrincipal, string>;
  trustedKeys: string;
}

/** Makes a fresh key pair for every principal; `version` goes into each kid for rotation. */
export function generateBusKeySet(version = '1'): BusKeySet {
  const signingKeys = {} as Record<BusPrincipal, string>;
  const publicKeys: JsonWebKey[] = [];
  for (const principal of BUS_PRINCIPALS) {
    const kid = `${principal}:${version}`;
    const pair = generateKeyPairSync('ed25519');
    signingKeys[principal] = JSON.stringify({ ...pair.privateKey.export({ format: 'jwk' }), kid });
    publicKeys.push({ ...pair.publicKey.export({ format: 'jwk' }), kid });
  }
  return { signingKeys, trustedKeys: JSON.stringify({ keys: publicKeys }) };
}
