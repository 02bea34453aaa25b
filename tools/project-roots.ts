import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's root. */
export const repoRoot = join(__dirname, '..');

/** Every Nx project's root folder (where its project.json is), relative to the repository. */
export function projectRoots(): string[] {
  return [
    ...['apps', 'libs'].flatMap((parent) =>
      readdirSync(join(repoRoot, parent)).map((name) => `${parent}/${name}`),
    ),
    'bench',
    'deploy',
    'tools',
    'tools/cluster-test',
  ].filter((root) => existsSync(join(repoRoot, root, 'project.json')));
}
