/**
 * PostgreSQL's foreign_key_violation, as both drivers report it: an insert whose parent (a
 * contact, a task) was deleted by a transaction that committed while the insert waited for it.
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const reported = (error as { code?: unknown; cause?: { code?: unknown } } | null) ?? {};
  return reported.code === '23503' || reported.cause?.code === '23503';
}
