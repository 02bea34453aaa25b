/**
 * The variables a step's text settings can pick (endpoint 11, rule 6: fields become selectable
 * once a test event of that shape was captured): every path of the chosen test event's body as
 * `{{Custom Webhook.<path>}}`, and every path of an earlier step's output in the last run as
 * `{{steps.<step name>.<path>}}`. The runner fills them (apps/workflow-runner templates.ts).
 */

export interface TemplateVariable {
  /** What goes between the braces: `Custom Webhook.order.id`. */
  expression: string;
  /** The path inside its group, as the picker shows it: `order.id`. */
  path: string;
  /** The value it had, shortened, for recognising the field. */
  sample: string;
}

export interface VariableGroup {
  /** Shown above its variables: `Custom Webhook (test event of 14:02)`, `Step "Fetch" (last run)`. */
  label: string;
  variables: TemplateVariable[];
}

/** Past this many, a group is cut: a body with thousands of fields is no list to pick from. */
export const MAX_VARIABLES_PER_GROUP = 200;
const MAX_DEPTH = 8;
const SAMPLE_CHARS = 40;

/** The runner splits an expression on dots and trims: such keys cannot be addressed. */
function isAddressable(key: string): boolean {
  return key.trim() === key && key !== '' && !/[.{}]/.test(key);
}

function sampleOf(value: unknown): string {
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  if (value !== null && typeof value === 'object') return 'object';
  const text = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return text.length > SAMPLE_CHARS ? `${text.slice(0, SAMPLE_CHARS)}…` : text;
}

/**
 * Every path of `value` below its root, depth first: objects by their keys, arrays as a whole
 * and through their first item (`items.0.sku`), as far as `MAX_VARIABLES_PER_GROUP`.
 */
export function pathsOf(value: unknown): { path: string; sample: string }[] {
  const found: { path: string; sample: string }[] = [];
  const visit = (node: unknown, segments: string[]) => {
    if (found.length >= MAX_VARIABLES_PER_GROUP || segments.length > MAX_DEPTH) return;
    if (segments.length > 0) found.push({ path: segments.join('.'), sample: sampleOf(node) });
    if (Array.isArray(node)) {
      if (node.length > 0) visit(node[0], [...segments, '0']);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (isAddressable(key)) visit(child, [...segments, key]);
    }
  };
  visit(value, []);
  return found;
}

export const TRIGGER_GROUP = 'Custom Webhook';

/** The test event body's variables; none when the body is not a JSON object or array. */
export function triggerVariables(body: unknown): TemplateVariable[] {
  return pathsOf(body).map(({ path, sample }) => ({
    expression: `${TRIGGER_GROUP}.${path}`,
    path,
    sample,
  }));
}

/** An earlier step's output variables; a text or number output is the step's name alone. */
export function stepVariables(stepName: string, output: unknown): TemplateVariable[] {
  if (!isAddressable(stepName) || output === undefined || output === null) return [];
  if (typeof output !== 'object') {
    return [{ expression: `steps.${stepName}`, path: '(the output)', sample: sampleOf(output) }];
  }
  return pathsOf(output).map(({ path, sample }) => ({
    expression: `steps.${stepName}.${path}`,
    path,
    sample,
  }));
}

export function placeholderOf(expression: string): string {
  return `{{${expression}}}`;
}

/** True when `caret` sits inside a JSON string of `text` (after an odd number of open quotes). */
export function isInsideJsonString(text: string, caret: number): boolean {
  let inside = false;
  for (let at = 0; at < caret && at < text.length; at += 1) {
    const char = text[at];
    if (inside && char === '\\') at += 1;
    else if (char === '"') inside = !inside;
  }
  return inside;
}

/**
 * What to insert into a JSON setting: inside a string the placeholder as it is; elsewhere a
 * string holding only the placeholder, which the runner replaces by the value with its type.
 */
export function jsonTokenFor(text: string, caret: number, expression: string): string {
  const placeholder = placeholderOf(expression);
  return isInsideJsonString(text, caret) ? placeholder : JSON.stringify(placeholder);
}

/** `text` with `token` in place of the selection `[start, end)`, and the caret after it. */
export function insertAt(
  text: string,
  start: number,
  end: number,
  token: string,
): { text: string; caret: number } {
  const from = Math.max(0, Math.min(start, text.length));
  const to = Math.max(from, Math.min(end, text.length));
  return { text: text.slice(0, from) + token + text.slice(to), caret: from + token.length };
}
