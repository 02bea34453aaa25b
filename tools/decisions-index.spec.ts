import { readFileSync } from 'node:fs';
import { INDEX_FILE, decisionsIndex } from './decisions-index';

describe('docs/decisions/README.md', () => {
  it('is the index of the records as they are (npm run docs:decisions writes it)', async () => {
    expect(readFileSync(INDEX_FILE, 'utf8')).toBe(await decisionsIndex());
  });

  it('shows what a later record changed in an older one', async () => {
    expect(await decisionsIndex()).toMatch(/\| 71 +\| .* Changed later by 139 \(amends\)\. +\|/);
  });
});
