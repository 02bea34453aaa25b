import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { repoRoot } from './project-roots';

/**
 * Lints a throwaway file, written into a project's sources as a change would be, and returns
 * what `rule` says of it (null: what ESLint itself says, such as an unused exemption).
 */
export async function lintMessages(
  file: string,
  source: string,
  rule: string | null,
): Promise<string[]> {
  const path = join(repoRoot, file);
  writeFileSync(path, source);
  try {
    const [result] = await new ESLint({ cwd: repoRoot }).lintFiles([path]);
    return (result?.messages ?? []).filter((m) => m.ruleId === rule).map((m) => m.message);
  } finally {
    rmSync(path, { force: true });
  }
}
