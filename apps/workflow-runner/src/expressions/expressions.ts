import {
  celEnv,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  parse,
  plan,
  type CelInput,
  type CelResult,
  type CelValue,
} from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { toJson } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';

/**
 * Expressions in step settings (issue 43 item 1, decision 161): CEL, parsed and planned by
 * @bufbuild/cel. CEL has no loops of its own and no side effects; its macros (map, filter, all,
 * exists, exists_one) iterate over a list the run already holds, and one inside another is
 * refused, so an evaluation costs at most about the size of what it reads.
 */

/** The longest expression accepted: an expression is a formula, not a program. */
export const MAX_EXPRESSION_LENGTH = 1_000;
/** The largest value an expression may produce, written as JSON. */
export const MAX_EXPRESSION_RESULT_BYTES = 256 * 1024;

/**
 * What an expression reads: the trigger's JSON body, the outputs of the steps before it, the
 * values `set` steps named, and inside a for_each its item and the item's index (from 0).
 */
export interface ExpressionScope {
  webhook: unknown;
  steps: Readonly<Record<string, unknown>>;
  vars: Readonly<Record<string, unknown>>;
  item?: unknown;
  index?: number;
}
export type ExpressionRoot = keyof ExpressionScope;
type Root = ExpressionRoot;
type Expr = NonNullable<ReturnType<typeof parse>['expr']>;
const ROOTS: readonly Root[] = ['webhook', 'steps', 'vars', 'item', 'index'];
/** Type names CEL writes as identifiers, as in `type(x) == string`. */
const TYPE_NAMES = new Set([
  'bool',
  'bytes',
  'double',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'type',
  'uint',
]);
const MACRO_NESTING_LIMIT = 1;

/** What a person is told about an expression that cannot be accepted or did not evaluate. */
export class ExpressionError extends Error {}

export interface CompiledExpression {
  readonly text: string;
  /** The roots it reads, so that only those are converted for it. */
  readonly roots: ReadonlySet<Root>;
  /** The step names it reads from `steps`, where written as a constant. */
  readonly stepNames: ReadonlySet<string>;
  readonly run: (bindings: Record<string, CelInput>) => CelResult;
}

const environment = celEnv({ funcs: strings });

/** Parses and checks an expression; throws an ExpressionError that says what is wrong. */
export function compileExpression(text: string): CompiledExpression {
  const source = text.trim();
  if (source.length === 0) throw new ExpressionError('The expression is empty');
  if (source.length > MAX_EXPRESSION_LENGTH) {
    throw new ExpressionError(`An expression has at most ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(source);
  } catch (error) {
    throw new ExpressionError(`Not a valid expression: ${syntaxMessage(error)}`);
  }
  if (!parsed.expr) throw new ExpressionError('The expression is empty');
  const roots = new Set<Root>();
  const stepNames = new Set<string>();
  checkExpr(parsed.expr, { bound: new Set(), macros: 0, roots, stepNames });
  return { text: source, roots, stepNames, run: plan(environment, parsed) };
}

/** `<input>:1:3: found + but …` as `at column 3: found + but …`. */
function syntaxMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^<input>:(\d+):(\d+): /, (_all, line: string, column: string) =>
    line === '1' ? `at column ${column}: ` : `at line ${line}, column ${column}: `,
  );
}

interface CheckState {
  bound: ReadonlySet<string>;
  macros: number;
  roots: Set<Root>;
  stepNames: Set<string>;
}

function constantString(expr: Expr | undefined): string | undefined {
  if (expr?.exprKind.case !== 'constExpr') return undefined;
  const constant = expr.exprKind.value.constantKind;
  return constant.case === 'stringValue' ? constant.value : undefined;
}

const isStepsRoot = (expr: Expr | undefined, state: CheckState) =>
  expr?.exprKind.case === 'identExpr' &&
  expr.exprKind.value.name === 'steps' &&
  !state.bound.has('steps');

/** Every name is a root, a macro's variable or a type; macros are not nested. */
function checkExpr(expr: Expr, state: CheckState): void {
  const kind = expr.exprKind;
  switch (kind.case) {
    case 'identExpr': {
      const { name } = kind.value;
      if (state.bound.has(name) || TYPE_NAMES.has(name)) return;
      if (!(ROOTS as readonly string[]).includes(name)) {
        throw new ExpressionError(
          `Unknown name "${name}": an expression reads webhook (the trigger's body), steps (earlier steps' outputs), vars (what set steps named) and, in a loop, item and index`,
        );
      }
      state.roots.add(name as Root);
      return;
    }
    case 'selectExpr': {
      if (isStepsRoot(kind.value.operand, state)) state.stepNames.add(kind.value.field);
      if (kind.value.operand) checkExpr(kind.value.operand, state);
      return;
    }
    case 'callExpr': {
      const [first, second] = kind.value.args;
      const named = constantString(second);
      if (kind.value.function === '_[_]' && isStepsRoot(first, state) && named !== undefined) {
        state.stepNames.add(named);
      }
      if (kind.value.target) checkExpr(kind.value.target, state);
      for (const arg of kind.value.args) checkExpr(arg, state);
      return;
    }
    case 'listExpr':
      for (const element of kind.value.elements) checkExpr(element, state);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') checkExpr(entry.keyKind.value, state);
        if (entry.value) checkExpr(entry.value, state);
      }
      return;
    case 'comprehensionExpr':
      checkComprehension(kind.value, state);
      return;
    case 'constExpr':
    case undefined:
      return;
  }
}

function checkComprehension(
  comprehension: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'],
  state: CheckState,
): void {
  if (state.macros >= MACRO_NESTING_LIMIT) {
    throw new ExpressionError(
      'A macro (map, filter, all, exists, exists_one) inside another is not allowed: it could take too long',
    );
  }
  if (comprehension.iterRange) checkExpr(comprehension.iterRange, state);
  if (comprehension.accuInit) checkExpr(comprehension.accuInit, state);
  const inner: CheckState = {
    ...state,
    macros: state.macros + 1,
    bound: new Set([
      ...state.bound,
      comprehension.iterVar,
      comprehension.accuVar,
      ...(comprehension.iterVar2 ? [comprehension.iterVar2] : []),
    ]),
  };
  for (const part of [comprehension.loopCondition, comprehension.loopStep, comprehension.result]) {
    if (part) checkExpr(part, inner);
  }
}

/** JSON as CEL reads it: objects are maps, numbers doubles (as CEL reads JSON), the rest as is. */
function toCel(value: unknown): CelInput {
  if (Array.isArray(value)) return value.map(toCel);
  if (value !== null && typeof value === 'object') {
    return new Map(Object.entries(value).map(([key, item]) => [key, toCel(item)]));
  }
  if (value === undefined) return null;
  return value as CelInput;
}

/** A CEL value as JSON: ints as numbers (text beyond 2^53), bytes as base64, times as RFC 3339. */
function toJsonValue(value: CelValue): unknown {
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (isCelUint(value)) return toJsonValue(value.value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (isCelList(value)) return [...value].map(toJsonValue);
  if (isCelMap(value)) {
    return Object.fromEntries([...value].map(([key, item]) => [String(key), toJsonValue(item)]));
  }
  if (isReflectMessage(value)) return toJson(value.desc, value.message);
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new ExpressionError(`The result ${value} is not a number JSON can hold`);
  }
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  throw new ExpressionError('The result is a type, which has no JSON form');
}

/** What CEL's messages mean for someone writing a setting. */
function explained(message: string): string {
  if (/no matching overload/.test(message) && /double/.test(message)) {
    return `${message} (numbers from JSON are doubles: write 2.0 rather than 2, or convert with int())`;
  }
  if (/^(field not found|no such key)/.test(message)) {
    return `${message} (has(x.field) tells whether it is there)`;
  }
  return message;
}

/** Evaluates a compiled expression over the run's values; throws an ExpressionError. */
export function evaluateExpression(compiled: CompiledExpression, scope: ExpressionScope): unknown {
  const bindings: Record<string, CelInput> = {};
  for (const root of compiled.roots) {
    const value = scope[root];
    if (value === undefined) {
      throw new ExpressionError(`${compiled.text}: ${root} is known only inside a for_each`);
    }
    bindings[root] = toCel(value);
  }
  let result: CelResult;
  try {
    result = compiled.run(bindings);
  } catch (error) {
    throw new ExpressionError(
      `${compiled.text}: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (isCelError(result))
    throw new ExpressionError(`${compiled.text}: ${explained(result.message)}`);
  const value = toJsonValue(result);
  if (Buffer.byteLength(JSON.stringify(value) ?? '') > MAX_EXPRESSION_RESULT_BYTES) {
    throw new ExpressionError(
      `${compiled.text}: the result is larger than ${MAX_EXPRESSION_RESULT_BYTES / 1024} KB`,
    );
  }
  return value;
}
