import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { developmentSubject, mintSessionToken } from './session';

/** A development session lasts a week: long enough for a day of curl, short enough to expire. */
const DEVELOPMENT_SESSION_TTL_SEC = 7 * 24 * 3600;

/** What a development session is minted for. */
export interface DevelopmentSessionRequest {
  email: string;
  /** Display name; the email's local part when absent. */
  name?: string;
  /** A platform administrator's session (may grant credits). */
  platformAdmin: boolean;
  /** The HS256 secret the gateway verifies sessions with (see `developmentSessionSecret`). */
  secret: string;
}

/**
 * The secret development sessions are signed with: SESSION_JWT_SECRET when set, else the one the
 * embedded runtime generated in its data folder on first start.
 */
export function developmentSessionSecret(options: {
  sessionJwtSecret?: string;
  dataDir: string;
}): string {
  if (options.sessionJwtSecret) return options.sessionJwtSecret;
  const file = join(resolve(options.dataDir), 'session-secret');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new Error(
      `no session secret: set SESSION_JWT_SECRET, or DATA_DIR to an embedded runtime's data folder (${file} is missing)`,
    );
  }
}

/** A `session=<token>` cookie for a development identity, as `/dev/sign-in` would set. */
export async function mintDevelopmentSession(request: DevelopmentSessionRequest): Promise<string> {
  if (!/^[^@\s]+@[^@\s]+$/.test(request.email)) {
    throw new Error(`not an email address: ${request.email}`);
  }
  const email = request.email.toLowerCase();
  const token = await mintSessionToken({
    secret: request.secret,
    sub: developmentSubject(email),
    email,
    name: request.name ?? email.split('@')[0] ?? email,
    platformAdmin: request.platformAdmin,
    expiresInSec: DEVELOPMENT_SESSION_TTL_SEC,
  });
  return `session=${token}`;
}
