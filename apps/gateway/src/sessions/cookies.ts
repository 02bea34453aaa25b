/** Reads one cookie from a Cookie header; undefined when absent. Values are URI-decoded when valid. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const separator = part.indexOf('=');
    if (separator < 0) continue;
    if (part.slice(0, separator).trim() !== name) continue;
    const raw = part.slice(separator + 1).trim();
    const unquoted = raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    try {
      return decodeURIComponent(unquoted);
    } catch {
      return unquoted;
    }
  }
  return undefined;
}

export interface SessionCookieOptions {
  secure: boolean;
  maxAgeSec: number;
}

/** The session cookie as the spec describes it: HttpOnly, Secure, SameSite=Lax. */
export function sessionCookie(token: string, options: SessionCookieOptions): string {
  const attributes = [
    `session=${token}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${options.maxAgeSec}`,
  ];
  if (options.secure) attributes.push('Secure');
  return attributes.join('; ');
}
