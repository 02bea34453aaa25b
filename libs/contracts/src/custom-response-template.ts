/**
 * A Custom Response written as JSON, placeholders included: `{"id": "{{body.id}}", "n":
 * {{body.n}}}`. Each placeholder is read where it stands, inside a string or as a bare value, so
 * that a request's values are put in as JSON (escaped) and can never add keys or close a string.
 */

/** `{{body.<path>}}`, the spec's placeholder; `{{Custom Webhook.<path>}}` is the same value. */
export const RESPONSE_PLACEHOLDER = /\{\{\s*(?:body|Custom Webhook)\.([^{}\s]+)\s*\}\}/g;

/** Where a template's JSON holds a placeholder: a whole value, or text within a string. */
export type TemplatePart = { kind: 'value'; path: string } | { kind: 'text'; path: string };

/** A parsed JSON template: strings carry markers that `fillJsonTemplate` replaces. */
export interface JsonTemplate {
  json: unknown;
  parts: readonly TemplatePart[];
}

/** The same placeholder, matched only where the walk stands. */
const PLACEHOLDER_HERE = new RegExp(RESPONSE_PLACEHOLDER.source, 'y');
// Private-use characters: valid inside a JSON string, and never in a template by accident.
const markerOf = (index: number) => `\uE000wap-placeholder:${index}\uE001`;
const WHOLE_MARKER = /^\uE000wap-placeholder:(\d+)\uE001$/;
const ANY_MARKER = /\uE000wap-placeholder:(\d+)\uE001/g;

/** True when the template means to be JSON: it starts as an object or an array does. */
export function looksLikeJson(template: string): boolean {
  return /^\s*[[{]/.test(template);
}

/**
 * Parses a template as JSON with its placeholders in place, or undefined when it is not JSON.
 * Whether a placeholder stands inside a string is read by walking the text, escapes included.
 */
export function parseJsonTemplate(template: string): JsonTemplate | undefined {
  const parts: TemplatePart[] = [];
  let text = '';
  let inString = false;
  let index = 0;
  while (index < template.length) {
    PLACEHOLDER_HERE.lastIndex = index;
    const placeholder = PLACEHOLDER_HERE.exec(template);
    if (placeholder?.[1]) {
      parts.push({ kind: inString ? 'text' : 'value', path: placeholder[1] });
      const marker = markerOf(parts.length - 1);
      // A bare placeholder becomes a string holding only its marker: a whole value to fill.
      text += inString ? marker : JSON.stringify(marker);
      index += placeholder[0].length;
      continue;
    }
    const char = template[index] ?? '';
    if (inString && char === '\\') {
      text += template.slice(index, index + 2);
      index += 2;
      continue;
    }
    if (char === '"') inString = !inString;
    text += char;
    index += 1;
  }
  try {
    return { json: JSON.parse(text), parts };
  } catch {
    return undefined;
  }
}

/**
 * Fills a parsed template: a whole-value placeholder takes the value as it is (a number stays a
 * number), one within a string takes its text. `valueOf` throws when a value is missing.
 */
export function fillJsonTemplate(
  template: JsonTemplate,
  valueOf: (path: string) => unknown,
): unknown {
  const pathAt = (index: string) => template.parts[Number(index)]?.path ?? '';
  const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
  const fillString = (value: string): unknown => {
    const whole = WHOLE_MARKER.exec(value);
    if (whole?.[1] !== undefined) return valueOf(pathAt(whole[1]));
    return value.replace(ANY_MARKER, (_marker, index: string) => asText(valueOf(pathAt(index))));
  };
  const fill = (node: unknown): unknown => {
    if (typeof node === 'string') return fillString(node);
    if (Array.isArray(node)) return node.map(fill);
    if (typeof node === 'object' && node !== null) {
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => [asText(fillString(key)), fill(value)]),
      );
    }
    return node;
  };
  return fill(template.json);
}
