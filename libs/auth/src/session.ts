import { createRemoteJWKSet, errors, jwtVerify, SignJWT, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import { AppError } from '@wap/contracts';

/** The session a verified token stands for. */
export const SessionClaims = z
  .object({
    sub: z.string().min(1),
    email: z.string().default(''),
    name: z.string().default(''),
    // Only a literal `true` grants platform rights: "true", 1 or a missing claim do not.
    platform_admin: z.unknown().optional(),
    exp: z.number(),
    /** When it was issued (seconds): "sign out everywhere" refuses what was issued before it. */
    iat: z.number().optional(),
  })
  .transform(({ sub, email, name, platform_admin, exp, iat }) => ({
    sub,
    email,
    name,
    platformAdmin: platform_admin === true,
    exp,
    ...(iat === undefined ? {} : { iat }),
  }));
export type SessionClaims = z.infer<typeof SessionClaims>;

/** Tokens signed by an identity provider, checked against its published keys. */
export interface JwksVerifierOptions {
  mode: 'jwks';
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** How long to wait for the JWKS endpoint before answering SERVICE_UNAVAILABLE. Default 3000. */
  jwksTimeoutMs?: number;
}

/** Tokens signed with a shared HS256 secret (development and the dev sign-in route). */
export interface SecretVerifierOptions {
  mode: 'secret';
  secret: string;
  issuer?: string;
  audience?: string;
}

export type SessionVerifierOptions = JwksVerifierOptions | SecretVerifierOptions;

export interface SessionVerifier {
  /**
   * Resolves the token's claims, or fails with an AppError: SESSION_EXPIRED, UNAUTHORIZED for
   * any other defect of the token, SERVICE_UNAVAILABLE when the signing keys cannot be fetched.
   */
  verify(token: string): Promise<SessionClaims>;
}

const JWKS_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
const SECRET_ALGORITHMS = ['HS256'];
const DEFAULT_JWKS_TIMEOUT_MS = 3000;
const DEFAULT_SESSION_TTL_SEC = 12 * 60 * 60;
const API_KEY_PREFIX = 'sk_';

/** The signing keys could not be obtained: the fault lies with the key source, not the token. */
class KeySourceUnavailableError extends Error {
  constructor(cause: unknown) {
    super('session signing keys are unavailable', { cause });
    this.name = 'KeySourceUnavailableError';
  }
}

/** Failures of key selection that the token's header causes (unknown kid, unsupported alg). */
function isCausedByToken(error: unknown): boolean {
  return (
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys ||
    error instanceof errors.JOSENotSupported
  );
}

/**
 * Wraps the remote key set so that failing to fetch or read it (connection refused, timeout,
 * non-200, malformed set) is told apart from a bad token: the first is a 503, the second a 401.
 */
function remoteKeys(jwksUrl: string, timeoutMs: number): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: timeoutMs });
  return async (protectedHeader, token) => {
    try {
      return await keySet(protectedHeader, token);
    } catch (error) {
      if (isCausedByToken(error)) throw error;
      throw new KeySourceUnavailableError(error);
    }
  };
}

function withCause(error: AppError, cause: unknown): AppError {
  error.cause = cause;
  return error;
}

function toAppError(error: unknown): AppError {
  if (error instanceof errors.JWTExpired) {
    return withCause(new AppError('SESSION_EXPIRED', 'Session has expired'), error);
  }
  if (error instanceof KeySourceUnavailableError) {
    return withCause(
      new AppError('SERVICE_UNAVAILABLE', 'Session verification is unavailable'),
      error.cause,
    );
  }
  return withCause(new AppError('UNAUTHORIZED', 'Invalid session'), error);
}

/** Builds the verifier the gateway uses for the `session` cookie. */
export function createSessionVerifier(
  options: SessionVerifierOptions,
  clockToleranceSec = 5,
): SessionVerifier {
  const key =
    options.mode === 'jwks'
      ? remoteKeys(options.jwksUrl, options.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS)
      : new TextEncoder().encode(options.secret);
  const algorithms = options.mode === 'jwks' ? JWKS_ALGORITHMS : SECRET_ALGORITHMS;

  return {
    async verify(token) {
      // Workspace API keys are never sessions; refuse them before they reach a JWT parser.
      if (token.length === 0 || token.startsWith(API_KEY_PREFIX)) {
        throw new AppError('UNAUTHORIZED', 'Invalid session');
      }
      let payload: unknown;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms,
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance: clockToleranceSec,
          // A session without an expiry would never end.
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        throw toAppError(error);
      }
      const claims = SessionClaims.safeParse(payload);
      if (!claims.success) {
        throw withCause(new AppError('UNAUTHORIZED', 'Invalid session'), claims.error);
      }
      return claims.data;
    },
  };
}

export interface MintSessionTokenOptions {
  secret: string;
  sub: string;
  email: string;
  name: string;
  issuer?: string;
  audience?: string;
  /** Lifetime of the token. Default 12 hours. */
  expiresInSec?: number;
  platformAdmin?: boolean;
}

/** Signs an HS256 session token, for the dev sign-in route and the dev CLI. */
export function mintSessionToken(options: MintSessionTokenOptions): Promise<string> {
  const claims: Record<string, unknown> = { email: options.email, name: options.name };
  if (options.platformAdmin) claims.platform_admin = true;
  const issuedAtSec = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.sub)
    .setIssuedAt(issuedAtSec)
    .setExpirationTime(issuedAtSec + (options.expiresInSec ?? DEFAULT_SESSION_TTL_SEC));
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  return jwt.sign(new TextEncoder().encode(options.secret));
}

/** Subject of development identities (dev sign-in, the dev CLI): never a real provider's subject. */
export function developmentSubject(email: string): string {
  return `dev|${email.toLowerCase()}`;
}
