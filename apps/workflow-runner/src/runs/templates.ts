/**
 * Step settings templates. `{{Custom Webhook.<key>.<subkey>}}` reads the trigger's JSON body,
 * `{{steps.<step name>.<path>}}` an earlier step's output; path segments are object keys or array
 * indexes. A variable that cannot be found becomes "" (never the template text). A string that is
 * exactly one placeholder takes the value as it is (a number stays a number, an object an object);
 * inside longer text, values are written as text (objects and arrays as JSON).
 */

/**
 * What templates can read: the trigger's body, the outputs of steps that ran so far and (in an
 * http_request step alone) the workspace credentials it names, `{{credentials.<name>}}`.
 */
export interface TemplateScope {
  trigger: unknown;
  steps: Readonly<Record<string, unknown>>;
  credentials?: ReadonlyMap<string, string>;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([^{}]*?)\s*\}\}$/;
const TRIGGER_GROUP = 'Custom Webhook';
const STEPS_GROUP = 'steps';
const CREDENTIALS_GROUP = 'credentials';

function walk(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** The value a variable names, or undefined when it names nothing. */
export function lookupVariable(expression: string, scope: TemplateScope): unknown {
  const segments = expression.split('.').map((segment) => segment.trim());
  const [group, ...path] = segments;
  if (group === TRIGGER_GROUP) return path.length === 0 ? undefined : walk(scope.trigger, path);
  if (group === STEPS_GROUP) {
    const [stepName, ...outputPath] = path;
    if (stepName === undefined || !Object.prototype.hasOwnProperty.call(scope.steps, stepName)) {
      return undefined;
    }
    return walk(scope.steps[stepName], outputPath);
  }
  if (group === CREDENTIALS_GROUP && path.length === 1)
    return scope.credentials?.get(path[0] ?? '');
  return undefined;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Fills one string. */
export function resolveString(template: string, scope: TemplateScope): unknown {
  const whole = WHOLE_PLACEHOLDER.exec(template);
  if (whole) {
    const value = lookupVariable(whole[1] ?? '', scope);
    return value === undefined || value === null ? '' : value;
  }
  return template.replace(PLACEHOLDER, (_match, expression: string) =>
    asText(lookupVariable(expression, scope)),
  );
}

/** Fills every string inside a settings value (objects and arrays are walked; keys stay as they are). */
export function resolveTemplates(value: unknown, scope: TemplateScope): unknown {
  if (typeof value === 'string') return resolveString(value, scope);
  if (Array.isArray(value)) return value.map((item) => resolveTemplates(item, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveTemplates(item, scope)]),
    );
  }
  return value;
}
