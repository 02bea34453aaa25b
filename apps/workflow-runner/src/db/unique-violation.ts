/** PostgreSQL's unique_violation, as both drivers report it. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | null) ?? {};
  return code.code === '23505' || code.cause?.code === '23505';
}
