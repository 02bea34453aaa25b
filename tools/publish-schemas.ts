// `npm run contracts:publish`: records every route subject's request and reply schemas in
// libs/contracts/published-schemas.json, refusing a change that would break a published
// version (decision 143: publish a new version of the subject beside the old one instead).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { breakingChanges, publishedSchemas, type SubjectSchemas } from '@wap/contracts';

export const PUBLISHED_SCHEMAS_FILE = join(
  __dirname,
  '..',
  'libs',
  'contracts',
  'published-schemas.json',
);

export function readPublishedSchemas(): Record<string, SubjectSchemas> {
  return existsSync(PUBLISHED_SCHEMAS_FILE)
    ? (JSON.parse(readFileSync(PUBLISHED_SCHEMAS_FILE, 'utf8')) as Record<string, SubjectSchemas>)
    : {};
}

export const renderPublishedSchemas = (schemas: Record<string, SubjectSchemas>) =>
  `${JSON.stringify(schemas, null, 2)}\n`;

if (require.main === module) {
  const recorded = readPublishedSchemas();
  const current = publishedSchemas(recorded);
  const broken = breakingChanges(recorded, current);
  if (broken.length > 0) {
    console.error(
      `Not published: these changes break callers of a published version\n  ${broken.join('\n  ')}`,
    );
    process.exit(1);
  }
  writeFileSync(PUBLISHED_SCHEMAS_FILE, renderPublishedSchemas(current));
  console.log(`published the schemas of ${Object.keys(current).length} subjects`);
}
