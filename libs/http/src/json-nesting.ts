/**
 * How deep arrays and objects may sit inside one another in a JSON body the platform accepts
 * (decision 119). Parsing and storing deeper values costs a stack frame a level somewhere
 * (validation, serialising, PostgreSQL's jsonb), and no real payload comes near it.
 */
export const JSON_NESTING_LIMIT = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether UTF-8 JSON text opens more than `limit` arrays and objects inside one another, read
 * from its bytes before any parse: brackets inside strings do not count, and no byte of a
 * multi-byte UTF-8 character is ASCII. Text that is not JSON gives some answer; its parse fails.
 */
export function nestsDeeperThan(utf8: Uint8Array, limit = JSON_NESTING_LIMIT): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < utf8.length; index += 1) {
    const byte = utf8[index];
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

/** The same for a parsed value (a body in UTF-16 or UTF-32), walked without recursion. */
export function valueNestsDeeperThan(value: unknown, limit = JSON_NESTING_LIMIT): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
