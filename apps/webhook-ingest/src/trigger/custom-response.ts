import type { ServiceReply } from '@wap/contracts';

/** The body a Custom Response sends when its text is left empty. */
export const DEFAULT_CUSTOM_BODY = { status: 'ok' };

const PLACEHOLDER = /\{\{\s*body\.([^{}\s]+)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*body\.([^{}\s]+)\s*\}\}$/;

/** Reads `a.b.c` from the request's JSON body; undefined when any step is missing. */
function valueAt(body: unknown, path: string): unknown {
  let current: unknown = body;
  for (const segment of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

class Unfillable extends Error {}

function lookup(body: unknown, path: string): unknown {
  const value = valueAt(body, path);
  if (value === undefined) throw new Unfillable(path);
  return value;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Fills every string of a parsed JSON template; a string that is one placeholder keeps the value's type. */
function fillJson(template: unknown, body: unknown): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE_PLACEHOLDER.exec(template);
    if (whole?.[1]) return lookup(body, whole[1]);
    return template.replace(PLACEHOLDER, (_match, path: string) => asText(lookup(body, path)));
  }
  if (Array.isArray(template)) return template.map((item) => fillJson(item, body));
  if (typeof template === 'object' && template !== null) {
    return Object.fromEntries(
      Object.entries(template).map(([key, value]) => [key, fillJson(value, body)]),
    );
  }
  return template;
}

function tryParse(text: string): { json: unknown } | undefined {
  try {
    return { json: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * Renders the Custom Response for one request, or undefined when any placeholder cannot be
 * filled (the caller then sends the default response). JSON text stays JSON, placeholders
 * written as bare values (`{"n": {{body.n}}}`) included; any other text goes out as text/plain.
 */
export function renderCustomResponse(template: string, body: unknown): ServiceReply | undefined {
  try {
    if (template.trim() === '') return { status: 200, body: DEFAULT_CUSTOM_BODY };
    const parsed = tryParse(template);
    if (parsed) return { status: 200, body: fillJson(parsed.json, body) };
    const filledAsJson = tryParse(
      template.replace(PLACEHOLDER, (_match, path: string) => JSON.stringify(lookup(body, path))),
    );
    if (filledAsJson) return { status: 200, body: filledAsJson.json };
    const text = template.replace(PLACEHOLDER, (_match, path: string) =>
      asText(lookup(body, path)),
    );
    return { status: 200, body: text, bodyKind: 'text' };
  } catch (error) {
    if (error instanceof Unfillable) return undefined;
    throw error;
  }
}
