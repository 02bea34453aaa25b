import { readFileSync } from 'node:fs';
import { INDEX_FILE, decisionsIndex, formProblems } from './decisions-index';

describe('docs/decisions/README.md', () => {
  it('is the index of the records as they are (npm run docs:decisions writes it)', async () => {
    expect(readFileSync(INDEX_FILE, 'utf8')).toBe(await decisionsIndex());
  });

  it('shows what a later record changed in an older one', async () => {
    expect(await decisionsIndex()).toMatch(/\| 71 +\| .* Changed later by 139 \(amends\)\. +\|/);
  });
});

describe('the form of a decision record', () => {
  const whole =
    '# 1. A title\n\nStatus: accepted.\n\n## Context\n\nc\n\n## Decision\n\nd\n\n## Consequences\n\n- e\n';

  it('is whole with a Status line, then Context, Decision and Consequences', () => {
    expect(formProblems(whole)).toEqual([]);
  });

  it.each([
    ['no Status line', whole.replace('Status: accepted.\n\n', ''), 'no "Status: " line'],
    ['no Consequences', whole.replace('## Consequences', '## Results'), 'no "## Consequences"'],
    [
      'sections out of order',
      '# 1. T\n\nStatus: accepted.\n\n## Decision\n\nd\n\n## Context\n\nc\n\n## Consequences\n\n- e\n',
      'no "## Decision"',
    ],
  ])('names what is missing: %s', (_case, text, problem) => {
    expect(formProblems(text).join('; ')).toContain(problem);
  });
});
