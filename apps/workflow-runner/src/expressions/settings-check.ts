import { AppError, type Step } from '@wap/contracts';
import { expressionsIn } from '../runs/templates';
import { compileExpression, ExpressionError } from './expressions';

/**
 * What can be known of a workflow's expressions when it is saved: each parses, reads only what
 * an expression can read, and names only steps that run before its own. Each problem is given
 * with the setting's path and the step's name (decision 161).
 */
export function expressionProblems(steps: readonly Step[]): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  for (const [index, step] of steps.entries()) {
    const earlier = new Set(steps.slice(0, index).map((before) => before.name));
    for (const found of expressionsIn(step.settings)) {
      const path = ['body', 'steps', index, 'settings', ...found.path].join('.');
      try {
        const compiled = compileExpression(found.text);
        for (const name of compiled.stepNames) {
          if (!earlier.has(name)) {
            problems.push({
              path,
              message: `Step "${step.name}": no step before it is named "${name}"`,
            });
          }
        }
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        problems.push({ path, message: `Step "${step.name}": ${error.message}` });
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
