import {
  fillJsonTemplate,
  parseJsonTemplate,
  RESPONSE_PLACEHOLDER,
  type ServiceReply,
} from '@wap/contracts';

/** The body a Custom Response sends when its text is left empty. */
export const DEFAULT_CUSTOM_BODY = { status: 'ok' };

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

/**
 * Renders the Custom Response for one request, or undefined when any placeholder cannot be
 * filled (the caller then sends the default response). A template that is JSON with its
 * placeholders (`{"id": "{{body.id}}", "n": {{body.n}}}`) is filled as JSON, each value escaped
 * where it stands; any other text goes out as text/plain (with nosniff, from the HTTP edge).
 */
export function renderCustomResponse(template: string, body: unknown): ServiceReply | undefined {
  try {
    if (template.trim() === '') return { status: 200, body: DEFAULT_CUSTOM_BODY };
    const parsed = parseJsonTemplate(template);
    if (parsed) {
      return { status: 200, body: fillJsonTemplate(parsed, (path) => lookup(body, path)) };
    }
    const text = template.replace(RESPONSE_PLACEHOLDER, (_match, path: string) =>
      asText(lookup(body, path)),
    );
    return { status: 200, body: text, bodyKind: 'text' };
  } catch (error) {
    if (error instanceof Unfillable) return undefined;
    throw error;
  }
}
