import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoots, repoRoot } from './project-roots';

describe('.github/CODEOWNERS', () => {
  const lines = readFileSync(join(repoRoot, '.github/CODEOWNERS'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/));

  it('names one owning team for every project, and no folder that is not one', () => {
    const owned = lines.filter(([path]) => path !== '*').map(([path]) => path);
    expect([...owned].sort()).toEqual(
      projectRoots()
        .map((root) => `/${root}/`)
        .sort(),
    );
  });

  it('gives each line one team', () => {
    for (const [path, ...owners] of lines) {
      expect({ path, owners }).toEqual({
        path,
        owners: [expect.stringMatching(/^@wap-platform\/[a-z-]+$/)],
      });
    }
  });
});
