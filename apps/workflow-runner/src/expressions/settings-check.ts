import { AppError, placedSteps, type PlacedStep, type Step } from '@wap/contracts';
import { expressionsIn } from '../runs/templates';
import { compileExpression, ExpressionError } from './expressions';

interface Problem {
  path: string;
  message: string;
}

/** The CEL a control step holds as written (no `{{= }}` around it): where it is, and its text. */
function conditionsOf(step: Step): { path: (string | number)[]; text: string }[] {
  const written = (key: string) => String(step.settings[key] ?? '');
  if (step.type === 'if') return [{ path: ['settings', 'condition'], text: written('condition') }];
  if (step.type === 'for_each') return [{ path: ['settings', 'items'], text: written('items') }];
  return (step.cases ?? []).map((found, index) => ({
    path: ['cases', index, 'when'],
    text: found.when,
  }));
}

/**
 * The names a step's expressions may read from `steps`: the steps written before it, except
 * those inside a for_each it is not in (they run once per item, in runs of their own).
 */
function readableNames(placed: readonly PlacedStep<Step>[], position: number): Set<string> {
  const here = placed[position];
  const loopsHere = new Set(
    here?.ancestors.filter(({ step }) => step.type === 'for_each').map(({ step }) => step) ?? [],
  );
  return new Set(
    placed
      .slice(0, position)
      .filter(({ ancestors }) =>
        ancestors.every(({ step }) => step.type !== 'for_each' || loopsHere.has(step)),
      )
      .map(({ step }) => step.name),
  );
}

/**
 * What can be known of a workflow's expressions when it is saved: each parses, reads only what
 * an expression can read (`item` and `index` inside a for_each alone), and names only steps that
 * run before its own. Each problem is given with the setting's path and the step's name
 * (decisions 161, 165).
 */
export function expressionProblems(steps: readonly Step[]): Problem[] {
  const problems: Problem[] = [];
  const placed = placedSteps(steps);
  for (const [position, { step, path, ancestors }] of placed.entries()) {
    const earlier = readableNames(placed, position);
    const inLoop = ancestors.some((ancestor) => ancestor.step.type === 'for_each');
    const found = [
      ...expressionsIn(step.settings).map((each) => ({
        ...each,
        path: ['settings', ...each.path],
      })),
      ...conditionsOf(step),
    ];
    for (const expression of found) {
      const at = ['body', 'steps', ...path, ...expression.path].join('.');
      const problem = (message: string) =>
        problems.push({ path: at, message: `Step "${step.name}": ${message}` });
      try {
        const compiled = compileExpression(expression.text);
        for (const name of compiled.stepNames) {
          if (!earlier.has(name)) problem(`no step before it is named "${name}"`);
        }
        for (const root of ['item', 'index'] as const) {
          if (compiled.roots.has(root) && !inLoop)
            problem(`${root} is known only inside a for_each`);
        }
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        problem(error.message);
      }
    }
  }
  return problems;
}

/** Refuses a save whose expressions cannot work, every problem listed. */
export function requireWorkingExpressions(steps: readonly Step[] | undefined): void {
  const details = expressionProblems(steps ?? []);
  if (details.length > 0) {
    throw new AppError('VALIDATION_ERROR', 'An expression in the steps cannot work', { details });
  }
}
