import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const repoRoot = join(__dirname, '..');

/** knip's findings on the tree as it is, as its JSON reporter gives them. */
function knipFindings(): string {
  const run = spawnSync('npx', ['knip', '--no-progress', '--reporter', 'json'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  return run.stdout;
}

describe('the dead-code check (knip.jsonc, a step of npm test)', () => {
  jest.setTimeout(120_000);

  it('reports a module nothing imports, and an export nobody uses', () => {
    const orphan = `libs/contracts/src/dead-code-probe-${process.pid}.ts`;
    const unusedExport = `unusedProbe${process.pid}`;
    writeFileSync(join(repoRoot, orphan), 'export const orphan = 1;\n');
    const names = join(repoRoot, 'libs/egress/src/dead-code-names-probe.ts');
    writeFileSync(names, `export const ${unusedExport} = 1;\nexport const usedProbe = 2;\n`);
    const user = join(repoRoot, 'libs/egress/src/dead-code-user-probe.spec.ts');
    writeFileSync(
      user,
      `import { usedProbe } from './dead-code-names-probe';\nit('uses', () => expect(usedProbe).toBe(2));\n`,
    );
    try {
      const findings = knipFindings();
      expect(findings).toContain(orphan);
      expect(findings).toContain(unusedExport);
      expect(findings).not.toContain('"usedProbe"');
    } finally {
      for (const file of [join(repoRoot, orphan), names, user]) rmSync(file, { force: true });
    }
  });
});
