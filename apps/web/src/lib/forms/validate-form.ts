import type { z } from 'zod';

/** One readable message per field that failed, keyed by the field's name. */
export type FieldErrors = Partial<Record<string, string>>;

export type FormValidation<T> = { ok: true; data: T } | { ok: false; errors: FieldErrors };

/**
 * Checks a form's values with a zod schema of `@wap/contracts` (the same one the service
 * checks the body with) and words each failure for a person, per field.
 */
export function validateForm<Schema extends z.ZodType>(
  schema: Schema,
  values: unknown,
): FormValidation<z.infer<Schema>> {
  const result = schema.safeParse(values, { error: readableIssueMessage });
  if (result.success) return { ok: true, data: result.data };
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}

/** zod's messages are written for developers ("Too small: expected string to have >=1 characters"). */
function readableIssueMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'too_small':
      if (issue.origin !== 'string') return `Enter at least ${String(issue.minimum)}.`;
      return Number(issue.minimum) <= 1
        ? 'Enter a value.'
        : `Use at least ${String(issue.minimum)} characters.`;
    case 'too_big':
      return issue.origin === 'string'
        ? `Use at most ${String(issue.maximum)} characters.`
        : `Enter at most ${String(issue.maximum)}.`;
    case 'invalid_format':
      if (issue.format === 'email') return 'Enter an email address, like name@example.com.';
      return 'This is not in the expected format.';
    case 'invalid_value':
      return 'Choose one of the options.';
    case 'invalid_type':
      return 'Enter a value.';
    // The contracts' form schemas do not raise these; zod's own message stays.
    case 'custom':
    case 'invalid_element':
    case 'invalid_key':
    case 'invalid_union':
    case 'not_multiple_of':
    case 'unrecognized_keys':
    case undefined:
      return undefined;
  }
}
