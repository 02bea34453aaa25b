/**
 * What a PostgreSQL `jsonb` column can hold. JSON can carry any UTF-16 string, but `jsonb`
 * refuses a NUL (`\u0000`) and a surrogate half without its other half, failing the whole
 * statement: one such string would fail every row written beside it.
 */
const NUL_OR_LONE_SURROGATE =
  /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const NUL_OR_LONE_SURROGATE_ALL = new RegExp(NUL_OR_LONE_SURROGATE.source, 'g');

/** Whether every string and key of the value can be stored in a `jsonb` column as it is. */
export function isJsonbStorable(value: unknown): boolean {
  if (typeof value === 'string') return !NUL_OR_LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(isJsonbStorable);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(
      ([key, entry]) => isJsonbStorable(key) && isJsonbStorable(entry),
    );
  }
  return true;
}

/**
 * The value with every NUL and lone surrogate in its strings and keys replaced by U+FFFD (the
 * replacement character), for data the platform did not choose (a step's response, a tool's
 * input) and must keep anyway. A storable value is returned as it is.
 */
export function toJsonbStorable<T>(value: T): T {
  if (isJsonbStorable(value)) return value;
  return replaceUnstorable(value) as T;
}

function replaceUnstorable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(NUL_OR_LONE_SURROGATE_ALL, '\ufffd');
  if (Array.isArray(value)) return value.map(replaceUnstorable);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, entry]) => [
        replaceUnstorable(key) as string,
        replaceUnstorable(entry),
      ]),
    );
  }
  return value;
}
