/**
 * NATS subject matching: tokens are separated by dots, `*` matches exactly one token and `>`
 * (last token only) matches one or more tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (let index = 0; index < patternTokens.length; index += 1) {
    const token = patternTokens[index];
    if (token === '>') return subjectTokens.length > index;
    if (index >= subjectTokens.length) return false;
    if (token !== '*' && token !== subjectTokens[index]) return false;
  }
  return patternTokens.length === subjectTokens.length;
}

const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

/**
 * Stream, consumer and bucket names become folder and file names here; NATS allows only these
 * characters in them, so checking them keeps both runtimes accepting the same names.
 */
export function assertValidName(kind: string, name: string): void {
  if (!NAME_PATTERN.test(name)) {
    throw new Error(`invalid ${kind} name "${name}": use letters, digits, "_" and "-" only`);
  }
}
