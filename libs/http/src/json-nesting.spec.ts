import { JSON_NESTING_LIMIT, nestsDeeperThan, valueNestsDeeperThan } from './json-nesting';

const nested = (depth: number, open = '[', close = ']') =>
  `${open.repeat(depth)}${close.repeat(depth)}`;
const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('the JSON nesting limit', () => {
  test.each([
    ['arrays at the limit', nested(JSON_NESTING_LIMIT), false],
    ['arrays one past it', nested(JSON_NESTING_LIMIT + 1), true],
    ['objects one past it', `${'{"a":'.repeat(257)}1${'}'.repeat(257)}`, true],
    ['objects at it', `${'{"a":'.repeat(256)}1${'}'.repeat(256)}`, false],
    ['brackets inside a string', JSON.stringify({ text: '['.repeat(10_000) }), false],
    ['an escaped quote does not end the string', `["\\"${'['.repeat(300)}"]`, false],
    ['100,000 deep', nested(100_000), true],
    ['wide, not deep', JSON.stringify(Array.from({ length: 5000 }, () => [[1]])), false],
    ['non-ASCII text around brackets', `["héllo ☃", ${nested(300)}]`, true],
  ])('%s', (_label, text, deeper) => {
    expect(nestsDeeperThan(bytes(text))).toBe(deeper);
    const parsed: unknown = JSON.parse(text);
    expect(valueNestsDeeperThan(parsed)).toBe(deeper);
  });

  test('a parsed value 100,000 deep is walked without a stack overflow', () => {
    let value: unknown = 1;
    for (let depth = 0; depth < 100_000; depth += 1) value = [value];
    expect(valueNestsDeeperThan(value)).toBe(true);
  });
});
