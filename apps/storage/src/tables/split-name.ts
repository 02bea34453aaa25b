/**
 * How a full name is split into first and last (spec endpoint 5; the rules are decision 63).
 * Pure: no I/O, so every rule is a row of a table-driven spec.
 */
export interface SplitName {
  first: string;
  last: string;
}

/** Titles dropped from the front of a name (compared without their dot, case-insensitively). */
const TITLES = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'sir',
  'dame',
  'rev',
  'fr',
  'hon',
  'lord',
  'lady',
]);

/** Suffixes kept at the end of the last name. */
const SUFFIXES = new Set([
  'jr',
  'sr',
  'ii',
  'iii',
  'iv',
  'v',
  'phd',
  'md',
  'esq',
  'dds',
  'mba',
  'cpa',
]);

/** Particles that belong to the last name they stand before ("van Beethoven", "bin Talal"). */
const PARTICLES = new Set([
  'van',
  'von',
  'de',
  'der',
  'den',
  'del',
  'della',
  'des',
  'di',
  'da',
  'do',
  'dos',
  'das',
  'du',
  'la',
  'le',
  'ter',
  'ten',
  'bin',
  'binti',
  'bint',
  'ibn',
  'al',
  'el',
  'mac',
  'st',
]);

/** Scripts whose names are written family name first (Han, Kana, Hangul). */
const FAMILY_NAME_FIRST =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function bare(token: string): string {
  return token.replace(/[.,]+$/u, '').toLowerCase();
}

const isTitle = (token: string) => TITLES.has(bare(token));
const isSuffix = (token: string) => SUFFIXES.has(bare(token));
const isParticle = (token: string) => PARTICLES.has(bare(token));

function tokensOf(text: string): string[] {
  return text.split(/\s+/u).filter((token) => token.length > 0);
}

/** The words of a name without the titles before them and the suffixes after them. */
function withoutTitlesAndSuffixes(tokens: string[]): { words: string[]; suffixes: string[] } {
  const words = [...tokens];
  while (words.length > 1 && isTitle(words[0] ?? '')) words.shift();
  const suffixes: string[] = [];
  while (words.length > 1 && isSuffix(words.at(-1) ?? '')) suffixes.unshift(words.pop() ?? '');
  return { words, suffixes };
}

/** Splits the tokens of a name written given names first. */
function splitGivenFirst(tokens: string[]): SplitName {
  const { words, suffixes } = withoutTitlesAndSuffixes(tokens);
  if (words.length === 1) return { first: words.join(''), last: suffixes.join(' ') };
  // The last name is the final word and the particles right before it; never the first word.
  let start = words.length - 1;
  while (start > 1 && isParticle(words[start - 1] ?? '')) start -= 1;
  return {
    first: words.slice(0, start).join(' '),
    last: [...words.slice(start), ...suffixes].join(' '),
  };
}

/**
 * The first and last name of a full name. `last` is empty for a single name. Commas: "Last,
 * First" when what follows the comma is not only suffixes ("King, Martin Luther"); otherwise
 * the comma only sets off suffixes ("Martin Luther King, Jr.").
 */
export function splitFullName(fullName: string): SplitName {
  const text = fullName.replace(/\s+/gu, ' ').trim();
  if (text === '') return { first: '', last: '' };
  const comma = text.indexOf(',');
  if (comma >= 0) {
    const before = text.slice(0, comma).trim();
    const after = tokensOf(text.slice(comma + 1).replace(/,/gu, ' '));
    if (after.length > 0 && after.every(isSuffix)) {
      const split = splitGivenFirst(tokensOf(before));
      return { first: split.first, last: [split.last, ...after].filter(Boolean).join(' ') };
    }
    if (before !== '' && after.length > 0) {
      // "Smith, Dr. John Jr.": the given part loses its titles, its suffixes join the last name.
      const given = withoutTitlesAndSuffixes(after);
      return { first: given.words.join(' '), last: [before, ...given.suffixes].join(' ') };
    }
    return splitFullName(text.replace(/,/gu, ' '));
  }
  const tokens = tokensOf(text);
  if (FAMILY_NAME_FIRST.test(text)) {
    const [family = '', ...given] = tokens;
    return given.length === 0
      ? { first: family, last: '' }
      : { first: given.join(' '), last: family };
  }
  return splitGivenFirst(tokens);
}

/** What one row of a split-name run does: nothing, or the cells it writes. */
export interface RowSplit {
  /** The source cell holds a name (a string with something besides whitespace). */
  processed: boolean;
  /** The cells to write (source and/or target); empty when the row is already as it should be. */
  cells: Record<string, string>;
}

function isBlank(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/**
 * The split of one row: the first name goes back into the source cell, the last name into the
 * target cell. A row whose target already holds a value was split before (or was filled by
 * hand) and is left alone, which is why a second run writes nothing.
 */
export function planRowSplit(
  cells: Record<string, unknown>,
  sourceId: string,
  targetId: string,
): RowSplit {
  const source = cells[sourceId];
  if (typeof source !== 'string' || source.trim() === '') return { processed: false, cells: {} };
  if (!isBlank(cells[targetId])) return { processed: true, cells: {} };
  const { first, last } = splitFullName(source);
  const changes: Record<string, string> = {};
  if (first !== source) changes[sourceId] = first;
  if (last !== '') changes[targetId] = last;
  return { processed: true, cells: changes };
}
