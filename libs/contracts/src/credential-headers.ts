/**
 * HTTP headers whose values are credentials: they are kept out of what members read (test
 * events, the input a run's step shows), named but with their value replaced.
 */
export const REDACTED = '[redacted]';

const CREDENTIAL_HEADER_NAMES = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
]);
/** `x-goog-api-key`, `x-auth-token`, `x-client-secret`, `x-hub-signature-256`, `stripe-signature`. */
const CREDENTIAL_HEADER_PATTERN = /(^|-)(key|token|secret|password|signature)(-|$)/;

export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADER_NAMES.has(lower) || CREDENTIAL_HEADER_PATTERN.test(lower);
}

/** The headers with every credential's value replaced by `[redacted]`. */
export function redactCredentialHeaders(
  headers: Readonly<Record<string, string>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      isCredentialHeader(name) ? REDACTED : value,
    ]),
  );
}
