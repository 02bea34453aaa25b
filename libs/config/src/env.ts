import { z } from 'zod';

/** A boolean env var: only "true"/"1"/"yes" are true, so "false" never turns into true. */
export function envBoolean(defaultValue: boolean) {
  return z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .optional()
    .transform((value) =>
      value === undefined ? defaultValue : ['true', '1', 'yes'].includes(value),
    );
}

/** Parses `env` with `schema`, or throws one error listing every bad variable. */
export function parseConfig<Schema extends z.ZodType>(
  schema: Schema,
  env: NodeJS.ProcessEnv,
): z.infer<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
}

/** Copies a config with the named secret fields replaced, for logging it at start. */
export function redactConfig<T extends object>(
  config: T,
  secretKeys: readonly (keyof T)[],
): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...(config as Record<string, unknown>) };
  for (const key of secretKeys) {
    if (copy[key as string] !== undefined) copy[key as string] = '[redacted]';
  }
  return copy;
}
