import type { z } from 'zod';
import { AppError } from '@wap/contracts';

/** Parses `value` with `schema`, or fails with 400 VALIDATION_ERROR listing zod's issues. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: 'body' | 'params' | 'query',
): z.infer<Schema> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError('VALIDATION_ERROR', `Invalid request ${where}`, {
    details: result.error.issues.map((issue) => ({
      path: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
      code: issue.code,
    })),
  });
}
