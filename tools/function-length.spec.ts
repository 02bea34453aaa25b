import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { lintMessages } from './lint-probe';
import { repoRoot } from './project-roots';

const RULE = 'max-lines-per-function';
/** An exemption in a line comment or a block comment; the group is what follows the rule. */
const EXEMPTIONS = [
  /\/\/\s*eslint-disable(?:-next-line|-line)?\s+max-lines-per-function\b(.*)$/gm,
  /\/\*\s*eslint-disable(?:-next-line|-line)?\s+max-lines-per-function\b([\s\S]*?)\*\//g,
];

/** A function of `statements` lines of code, each its own statement. */
function functionOf(statements: number, exemption = ''): string {
  const body = Array.from({ length: statements }, (_, at) => `  total += ${at};`).join('\n');
  return `${exemption}export function probe(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

const probe = (root: string, suffix = '.ts') =>
  `${root}/function-length-probe-${process.pid}${suffix}`;

/** Every production source file of the apps and libs, relative to the repository. */
function productionSources(): string[] {
  return ['apps', 'libs'].flatMap((parent) =>
    readdirSync(join(repoRoot, parent)).flatMap((project) => {
      const src = join(parent, project, 'src');
      let files: string[];
      try {
        files = readdirSync(join(repoRoot, src), { recursive: true, encoding: 'utf8' });
      } catch {
        return [];
      }
      return files.filter((file) => /\.tsx?$/.test(file)).map((file) => join(src, file));
    }),
  );
}

describe('function length (eslint.config.mjs)', () => {
  jest.setTimeout(120_000);

  it('a production function over 80 lines is refused, one of 80 is not', async () => {
    const file = probe('apps/chat/src');
    // Its signature, first statement, return and closing brace: 77 statements more make 81 lines.
    expect(await lintMessages(file, functionOf(77), RULE)).toEqual([
      "Function 'probe' has too many lines (81). Maximum allowed is 80.",
    ]);
    expect(await lintMessages(file, functionOf(76), RULE)).toEqual([]);
  });

  it('the web app and the libs are held to it too; specs are not', async () => {
    expect(await lintMessages(probe('apps/web/src', '.tsx'), functionOf(77), RULE)).toHaveLength(1);
    expect(await lintMessages(probe('libs/platform/src'), functionOf(77), RULE)).toHaveLength(1);
    expect(await lintMessages(probe('apps/chat/src', '.spec.ts'), functionOf(77), RULE)).toEqual(
      [],
    );
  });

  it('an exemption that no longer exempts anything is an error', async () => {
    const exemption = `// eslint-disable-next-line ${RULE} -- a reason\n`;
    expect(await lintMessages(probe('apps/chat/src'), functionOf(77, exemption), RULE)).toEqual([]);
    expect(await lintMessages(probe('apps/chat/src'), functionOf(3, exemption), null)).toEqual([
      expect.stringMatching(/^Unused eslint-disable directive/),
    ]);
  });

  it('every exemption in the sources says why', () => {
    const exemptions = productionSources().flatMap((file) =>
      EXEMPTIONS.flatMap((pattern) =>
        [...readFileSync(join(repoRoot, file), 'utf8').matchAll(pattern)].map((match) => ({
          file,
          reason: /^\s*--\s*(\S.*)/s.exec(match[1] ?? '')?.[1]?.trim() ?? '',
        })),
      ),
    );
    // The scan does find them: a pattern that matched nothing would prove nothing.
    expect(exemptions.length).toBeGreaterThan(30);
    expect(exemptions.filter(({ reason }) => reason.split(/\s+/).length < 6)).toEqual([]);
  });
});
