import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import { Actor, BUS_PRINCIPALS, isBusPrincipal, type BusPrincipal } from '@wap/contracts';

/**
 * Signed bus assertions (decision 112): who is asking, for which service, about which bytes.
 * Every signer holds an Ed25519 key of its own whose `kid` names it (`<principal>:<version>`);
 * every service holds the public keys of all signers, so no service can mint another's
 * assertion, and only the gateway and the operators' CLI can name a person.
 *
 * The assertion is a compact JWS (RFC 7515) with `alg: EdDSA` (RFC 8037), the format `jose`
 * reads and writes (the security suite signs its attacks with `jose`); it is made and checked
 * with node:crypto's synchronous Ed25519, since `jose` goes through WebCrypto's thread pool and
 * costs ten times as much on every hop of every request (decision 112).
 */
const ALGORITHM = 'EdDSA';
/** Long enough for a request to cross a busy bus, short enough that a copy is soon worthless. */
export const BUS_ASSERTION_LIFETIME_SECONDS = 30;
/** Clock difference between two pods tolerated when checking `iat` and `exp`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Principals whose assertions may name a signed-in person (and the platform-admin flag). */
const USER_SIGNERS: ReadonlySet<BusPrincipal> = new Set(['gateway', 'operator']);

const ProtectedHeader = z.object({ alg: z.literal(ALGORITHM), kid: z.string() });

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
}

export interface BusVerifier {
  /** Verifies an assertion meant for `audience`; refuses a copy of one already seen. */
  verify(token: string | undefined, audience: string): Promise<VerifiedAssertion>;
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

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new BusAssertionError('malformed');
  }
}

/** A signer from `BUS_SIGNING_KEY` (a private Ed25519 JWK whose kid names its principal). */
export async function createBusSigner(privateJwkJson: string): Promise<BusSigner> {
  const jwk = PrivateJwk.parse(JSON.parse(privateJwkJson));
  const principal = principalOfKid(jwk.kid);
  if (!principal) throw new Error(`BUS_SIGNING_KEY's kid ${jwk.kid} names no bus principal`);
  const { kid, ...keyPart } = jwk;
  const key = createPrivateKey({ key: keyPart as JsonWebKey, format: 'jwk' });
  const mayNameUsers = USER_SIGNERS.has(principal);
  const encodedHeader = base64url(JSON.stringify({ alg: ALGORITHM, kid }));
  // Assertion ids: a random prefix per signer and a counter, unique without a random draw per
  // request (the draw was 3 % of the gateway's busy time in bench:gateway's profile).
  const jtiPrefix = randomBytes(12).toString('base64url');
  let issued = 0;
  return {
    principal,
    async sign(claims) {
      if (claims.user && !mayNameUsers) {
        throw new Error(`${principal} cannot sign for a person: only the gateway can`);
      }
      const issuedAt = Math.floor(Date.now() / 1000);
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
      const signingInput = `${encodedHeader}.${payload}`;
      return `${signingInput}.${base64url(sign(null, Buffer.from(signingInput), key))}`;
    },
  };
}

/**
 * A verifier from `BUS_TRUSTED_KEYS` (a JWKS of every signer's public key). `now` is the
 * wall-clock time in milliseconds.
 */
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
  // Assertion ids seen and when they expire, oldest first: a copy is refused until then.
  const seen = new Map<string, number>();
  const forgetExpired = (nowSeconds: number) => {
    for (const [jti, expiresAt] of seen) {
      if (expiresAt + CLOCK_TOLERANCE_SECONDS >= nowSeconds) break;
      seen.delete(jti);
    }
  };

  return {
    async verify(token, audience) {
      if (!token) throw new BusAssertionError('missing');
      const parts = token.split('.');
      if (parts.length !== 3) throw new BusAssertionError('malformed');
      const [encodedHeader = '', encodedPayload = '', signature = ''] = parts;
      const header = ProtectedHeader.safeParse(decodeJson(encodedHeader));
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
      const claims = AssertionClaims.safeParse(decodeJson(encodedPayload));
      if (!claims.success) throw new BusAssertionError('malformed');
      const { iss, aud, iat, exp, jti, dig, rid, usr } = claims.data;
      // The key names its holder: a key of chat's cannot sign as the gateway.
      if (iss !== known.principal) throw new BusAssertionError('bad_signature');
      const nowSeconds = Math.floor(options.now() / 1000);
      if (
        exp + CLOCK_TOLERANCE_SECONDS < nowSeconds ||
        iat - CLOCK_TOLERANCE_SECONDS > nowSeconds ||
        exp - iat > BUS_ASSERTION_LIFETIME_SECONDS
      ) {
        throw new BusAssertionError('expired');
      }
      if (aud !== audience) throw new BusAssertionError('audience');
      if (usr && !USER_SIGNERS.has(known.principal)) {
        throw new BusAssertionError('user_not_allowed');
      }
      forgetExpired(nowSeconds);
      if (seen.has(jti)) throw new BusAssertionError('replayed');
      seen.set(jti, exp);
      return { principal: known.principal, audience: aud, digest: dig, requestId: rid, user: usr };
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
