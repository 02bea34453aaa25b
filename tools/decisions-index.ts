// `npm run docs:decisions`: writes docs/decisions/README.md, the index of the decision records,
// from their titles and Status lines; tools/decisions-index.spec.ts fails when it is stale.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';

const decisionsDir = join(__dirname, '..', 'docs', 'decisions');
export const INDEX_FILE = join(decisionsDir, 'README.md');

interface DecisionRecord {
  number: number;
  file: string;
  title: string;
  status: string;
}

/** The sections every record has, in this order, after its Status line. */
const SECTIONS = ['## Context', '## Decision', '## Consequences'];

/** What keeps a record from the one form (Status, Context, Decision, Consequences); empty when none. */
export function formProblems(text: string): string[] {
  const problems = /^Status: \S/m.test(text) ? [] : ['no "Status: " line'];
  let from = 0;
  for (const section of SECTIONS) {
    const at = text.indexOf(`\n${section}\n`, from);
    if (at < 0) problems.push(`no "${section}" section after the ones before it`);
    else from = at + 1;
  }
  return problems;
}

/** Verbs by which a newer record's Status line changes an older one ("Amends decision 71"). */
const CHANGE =
  /\b(Amends|Supersedes|Replaces|Refines|Extends|Completes)\b[^.]*?\bdecisions? (\d+)/g;

function readRecords(): DecisionRecord[] {
  return readdirSync(decisionsDir)
    .filter((file) => /^\d{4}-.*\.md$/.test(file))
    .map((file) => {
      const text = readFileSync(join(decisionsDir, file), 'utf8');
      const heading = /^# (\d+)\. (.+)$/m.exec(text);
      if (!heading?.[1] || !heading[2]) throw new Error(`${file} has no "# N. Title" heading`);
      const problems = formProblems(text);
      if (problems.length > 0) throw new Error(`${file}: ${problems.join('; ')}`);
      const status = /^Status: (.+(?:\n(?!\n).+)*)/m.exec(text)?.[1]?.replace(/\s+/g, ' ') ?? '';
      return { number: Number(heading[1]), file, title: heading[2], status };
    })
    .sort((a, b) => a.number - b.number);
}

/** The index page: every record with its status, and what later records changed in it. */
export async function decisionsIndex(): Promise<string> {
  const records = readRecords();
  const changedBy = new Map<number, string[]>();
  for (const record of records) {
    for (const [, verb = '', target] of record.status?.matchAll(CHANGE) ?? []) {
      const notes = changedBy.get(Number(target)) ?? [];
      notes.push(`${record.number} (${verb.toLowerCase()})`);
      changedBy.set(Number(target), notes);
    }
  }
  const rows = records.map((record) => {
    const { status } = record;
    const changes = changedBy.get(record.number);
    const cell = changes ? `${status} Changed later by ${changes.join(', ')}.` : status;
    return `| ${record.number} | [${record.title.replace(/\|/g, '\\|')}](${record.file}) | ${cell.replace(/\|/g, '\\|')} |`;
  });
  const page = [
    '# Decision records',
    '',
    'Why the platform is built as it is: one record per decision, newest last. A record keeps',
    'its number; a later record that changes it says so in its Status line, and the change is',
    'shown here beside the older one. Every record has one form, as',
    '[decision 141](0141-boundaries-by-tag-and-exports.md) shows: a Status line, then Context,',
    'Decision and Consequences; this page is not written while one lacks a part.',
    '',
    'This page is written by `npm run docs:decisions`; `tools/decisions-index.spec.ts` fails when it',
    'is not current.',
    '',
    '| # | Decision | Status |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  const style = await resolveConfig(INDEX_FILE);
  return format(page, { ...style, filepath: INDEX_FILE });
}

if (require.main === module) {
  void decisionsIndex().then((page) => {
    writeFileSync(INDEX_FILE, page);
    console.log(`wrote ${INDEX_FILE}`);
  });
}
