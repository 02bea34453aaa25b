import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  SignJWT,
  errors,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type CryptoKey,
  type KeyObject,
} from 'jose';
import { z } from 'zod';
import { Actor, BUS_PRINCIPALS, isBusPrincipal, type BusPrincipal } from '@wap/contracts';

/**
 * Signed bus assertions (decision 112): who is asking, for which service, about which bytes.
 * Every signer holds an Ed25519 key of its own whose `kid` names it (`<principal>:<version>`);
 * every service holds the public keys of all signers, so no service can mint another's
 * assertion, and only the gateway and the operators' CLI can name a person.
 */
const ALGORITHM = 'EdDSA';
/** Long enough for a request to cross a busy bus, short enough that a copy is soon worthless. */
export const BUS_ASSERTION_LIFETIME_SECONDS = 30;
/** Clock difference between two pods tolerated when checking `iat` and `exp`. */
const CLOCK_TOLERANCE_SECONDS = 5;
/** Principals whose assertions may name a signed-in person (and the platform-admin flag). */
const USER_SIGNERS: ReadonlySet<BusPrincipal> = new Set(['gateway', 'operator']);

type SigningKey = CryptoKey | KeyObject;

const AssertionClaims = z.object({
  iss: z.string(),
  aud: z.string(),
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

/** A signer from `BUS_SIGNING_KEY` (a private Ed25519 JWK whose kid names its principal). */
export async function createBusSigner(privateJwkJson: string): Promise<BusSigner> {
  const jwk = PrivateJwk.parse(JSON.parse(privateJwkJson));
  const principal = principalOfKid(jwk.kid);
  if (!principal) throw new Error(`BUS_SIGNING_KEY's kid ${jwk.kid} names no bus principal`);
  const key = (await importJWK(jwk, ALGORITHM)) as SigningKey;
  const mayNameUsers = USER_SIGNERS.has(principal);
  return {
    principal,
    async sign(claims) {
      if (claims.user && !mayNameUsers) {
        throw new Error(`${principal} cannot sign for a person: only the gateway can`);
      }
      return new SignJWT({
        dig: claims.digest,
        ...(claims.requestId ? { rid: claims.requestId } : {}),
        ...(claims.user ? { usr: claims.user } : {}),
      })
        .setProtectedHeader({ alg: ALGORITHM, kid: jwk.kid })
        .setIssuer(principal)
        .setAudience(claims.audience)
        .setIssuedAt()
        .setExpirationTime(`${BUS_ASSERTION_LIFETIME_SECONDS}s`)
        .setJti(randomBytes(16).toString('base64url'))
        .sign(key);
    },
  };
}

/**
 * A verifier from `BUS_TRUSTED_KEYS` (a JWKS of every signer's public key). `now` is the
 * injected clock's reading in milliseconds.
 */
export async function createBusVerifier(
  trustedJwksJson: string,
  options: { now: () => number },
): Promise<BusVerifier> {
  const jwks = PublicJwks.parse(JSON.parse(trustedJwksJson));
  const keys = new Map<string, { principal: BusPrincipal; key: SigningKey }>();
  for (const jwk of jwks.keys) {
    const principal = principalOfKid(jwk.kid);
    if (!principal) throw new Error(`BUS_TRUSTED_KEYS: kid ${jwk.kid} names no bus principal`);
    const { d: _private, ...publicPart } = jwk as JWK;
    keys.set(jwk.kid, { principal, key: (await importJWK(publicPart, ALGORITHM)) as SigningKey });
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
      let payload: JWTPayload;
      let kid: string | undefined;
      try {
        const verified = await jwtVerify(
          token,
          (header) => {
            kid = header.kid;
            const known = header.kid ? keys.get(header.kid) : undefined;
            if (!known) throw new BusAssertionError('unknown_key');
            return known.key;
          },
          {
            algorithms: [ALGORITHM],
            audience,
            clockTolerance: CLOCK_TOLERANCE_SECONDS,
            maxTokenAge: BUS_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS,
            currentDate: new Date(options.now()),
            requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti'],
          },
        );
        payload = verified.payload;
      } catch (error) {
        throw refusalOf(error);
      }
      const claims = AssertionClaims.safeParse(payload);
      const signer = kid ? keys.get(kid)?.principal : undefined;
      if (!claims.success || !signer) throw new BusAssertionError('malformed');
      // The key names its holder: a key of chat's cannot sign as the gateway.
      if (claims.data.iss !== signer) throw new BusAssertionError('bad_signature');
      if (claims.data.usr && !USER_SIGNERS.has(signer)) {
        throw new BusAssertionError('user_not_allowed');
      }
      const nowSeconds = Math.floor(options.now() / 1000);
      forgetExpired(nowSeconds);
      if (seen.has(claims.data.jti)) throw new BusAssertionError('replayed');
      seen.set(claims.data.jti, payload.exp ?? nowSeconds);
      return {
        principal: signer,
        audience: claims.data.aud,
        digest: claims.data.dig,
        requestId: claims.data.rid,
        user: claims.data.usr,
      };
    },
  };
}

function refusalOf(error: unknown): BusAssertionError {
  if (error instanceof BusAssertionError) return error;
  if (error instanceof errors.JWTExpired) return new BusAssertionError('expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return new BusAssertionError('audience');
    if (error.claim === 'iat') return new BusAssertionError('expired');
    return new BusAssertionError('malformed');
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return new BusAssertionError('bad_signature');
  }
  return new BusAssertionError('malformed');
}

/** A development or test key set: one signing key per principal and the JWKS of all of them. */
export interface BusKeySet {
  signingKeys: Record<BusPrincipal, string>;
  trustedKeys: string;
}

/** Makes a fresh key pair for every principal; `version` goes into each kid for rotation. */
export function generateBusKeySet(version = '1'): BusKeySet {
  const signingKeys = {} as Record<BusPrincipal, string>;
  const publicKeys: JWK[] = [];
  for (const principal of BUS_PRINCIPALS) {
    const kid = `${principal}:${version}`;
    const pair = generateKeyPairSync('ed25519');
    signingKeys[principal] = JSON.stringify({ ...pair.privateKey.export({ format: 'jwk' }), kid });
    publicKeys.push({ ...pair.publicKey.export({ format: 'jwk' }), kid });
  }
  return { signingKeys, trustedKeys: JSON.stringify({ keys: publicKeys }) };
}
