import {
  compileExpression,
  evaluateExpression,
  type CompiledExpression,
  type ExpressionScope,
} from '../expressions/expressions';

/**
 * Step settings templates. `{{Custom Webhook.<key>.<subkey>}}` reads the trigger's JSON body,
 * `{{steps.<step name>.<path>}}` an earlier step's output; path segments are object keys or array
 * indexes. A variable that cannot be found becomes "" (never the template text). `{{= <CEL> }}`
 * computes a value (decision 161); one that fails throws an ExpressionError, which fails the
 * step. A string that is exactly one placeholder takes the value as it is (a number stays a
 * number, an object an object); inside longer text, values are written as text (objects and
 * arrays as JSON). Every placeholder is filled in one pass: what a value holds is never read as
 * a template.
 */

/**
 * What templates can read: the trigger's body, the outputs of steps that ran so far, the values
 * `set` steps named (`{{vars.<name>}}`), in a loop its `{{item.<path>}}` and `{{index}}`, and
 * (in an http_request step alone) the workspace credentials it names, `{{credentials.<name>}}`.
 */
export interface TemplateScope {
  trigger: unknown;
  steps: Readonly<Record<string, unknown>>;
  vars: Readonly<Record<string, unknown>>;
  loop?: { item: unknown; index: number };
  credentials?: ReadonlyMap<string, string>;
}

/** `{{= expression }}` (up to the first `}}`) or `{{ variable }}`. */
const PLACEHOLDER = /\{\{=([\s\S]*?)\}\}|\{\{\s*([^{}]*?)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^(?:\{\{=((?:(?!\}\})[\s\S])*)\}\}|\{\{\s*([^{}]*?)\s*\}\})$/;
/** Expressions of the workflows this runner runs, compiled once; the oldest are dropped first. */
const compiled = new Map<string, CompiledExpression>();
const COMPILED_KEPT = 1_000;
const TRIGGER_GROUP = 'Custom Webhook';
const STEPS_GROUP = 'steps';
const CREDENTIALS_GROUP = 'credentials';
const VARS_GROUP = 'vars';
const ITEM_GROUP = 'item';
const INDEX_GROUP = 'index';

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
  if (group === VARS_GROUP) return path.length === 0 ? undefined : walk(scope.vars, path);
  if (group === ITEM_GROUP) return scope.loop ? walk(scope.loop.item, path) : undefined;
  if (group === INDEX_GROUP && path.length === 0) return scope.loop?.index;
  return undefined;
}

/** Finds `{{= … }}` placeholders: the settings' path to each string, and each expression in it. */
export function expressionsIn(
  value: unknown,
  path: readonly (string | number)[] = [],
): { path: (string | number)[]; text: string }[] {
  if (typeof value === 'string') {
    return [...value.matchAll(PLACEHOLDER)].flatMap((match) =>
      match[1] === undefined ? [] : [{ path: [...path], text: match[1] }],
    );
  }
  if (Array.isArray(value))
    return value.flatMap((item, index) => expressionsIn(item, [...path, index]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => expressionsIn(item, [...path, key]));
  }
  return [];
}

/** Evaluates one expression (a condition, a loop's items) over the scope; throws an ExpressionError. */
export function evaluated(text: string, scope: TemplateScope): unknown {
  let expression = compiled.get(text);
  if (!expression) {
    expression = compileExpression(text);
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value ?? '');
    compiled.set(text, expression);
  }
  return evaluateExpression(expression, scopeOfExpressions(scope));
}

/** What an expression reads, from what templates read. */
export function scopeOfExpressions(scope: TemplateScope): ExpressionScope {
  return {
    webhook: scope.trigger,
    steps: scope.steps,
    vars: scope.vars,
    ...(scope.loop ? { item: scope.loop.item, index: scope.loop.index } : {}),
  };
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
    const value =
      whole[1] === undefined ? lookupVariable(whole[2] ?? '', scope) : evaluated(whole[1], scope);
    return value === undefined || value === null ? '' : value;
  }
  return template.replace(
    PLACEHOLDER,
    (_match, expression: string | undefined, variable: string | undefined) =>
      asText(
        expression === undefined
          ? lookupVariable(variable ?? '', scope)
          : evaluated(expression, scope),
      ),
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
