import { breakingChanges, publishedSchemas } from '@wap/contracts';
import {
  PUBLISHED_SCHEMAS_FILE,
  readPublishedSchemas,
  renderPublishedSchemas,
} from './publish-schemas';
import { readFileSync } from 'node:fs';

describe('libs/contracts/published-schemas.json', () => {
  const published = readPublishedSchemas();
  const current = publishedSchemas(published);

  it('no route subject breaks what its published version promised', () => {
    // A breaking change publishes a new version of the subject beside the old one (decision 143).
    expect(breakingChanges(published, current)).toEqual([]);
  });

  it('records every subject as it is now (npm run contracts:publish)', () => {
    expect(readFileSync(PUBLISHED_SCHEMAS_FILE, 'utf8')).toBe(renderPublishedSchemas(current));
  });
});
