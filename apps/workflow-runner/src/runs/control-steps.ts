import { z } from 'zod';
import { IfSettings, SetSettings, StopSettings } from '@wap/contracts';
import { ExpressionError } from '../expressions/expressions';
import type { RunStepRow } from './run-rows';
import { evaluated, resolveTemplates, type TemplateScope } from './templates';

/**
 * The control steps that decide at once (decision 165): `if` and `switch` take a branch, `set`
 * names values, `stop` ends the run. What each decided is its output; a condition that fails or
 * gives something other than true or false fails the step, as any setting's expression would.
 */
export type Decision =
  | { kind: 'succeeded'; input: unknown; output: unknown }
  | { kind: 'failed'; input: unknown; error: string }
  /** A stop step: the run ends now, as it says. */
  | { kind: 'stop'; input: unknown; status: 'succeeded' | 'failed'; message: string | null };

const SwitchRowSettings = z.object({ cases: z.array(z.string()) });

function condition(text: string, scope: TemplateScope): boolean {
  const value = evaluated(text, scope);
  if (typeof value !== 'boolean') {
    throw new ExpressionError(
      `${text.trim()}: gave ${value === null ? 'null' : typeof value}, not true or false`,
    );
  }
  return value;
}

function decide(step: RunStepRow, scope: TemplateScope): Decision {
  switch (step.type) {
    case 'if': {
      const settings = IfSettings.parse(step.settings);
      const value = condition(settings.condition, scope);
      return {
        kind: 'succeeded',
        input: settings,
        output: { branch: value ? 'then' : 'else', condition: value },
      };
    }
    case 'switch': {
      const { cases } = SwitchRowSettings.parse(step.settings);
      const matched = cases.findIndex((when) => condition(when, scope));
      return {
        kind: 'succeeded',
        input: { cases },
        output:
          matched < 0
            ? { branch: 'default', case: null }
            : { branch: `case:${matched}`, case: matched },
      };
    }
    case 'set': {
      const values = resolveTemplates(SetSettings.parse(step.settings).values, scope);
      return { kind: 'succeeded', input: { values }, output: values };
    }
    case 'stop': {
      const settings = StopSettings.parse(step.settings);
      const message =
        settings.message === undefined ? null : String(resolveTemplates(settings.message, scope));
      return {
        kind: 'stop',
        input: { status: settings.status, message },
        status: settings.status,
        message,
      };
    }
    default:
      throw new Error(`${step.type} is not a control step that decides at once`);
  }
}

/** What an if, switch, set or stop step decides over the run's values. */
export function decideControlStep(step: RunStepRow, scope: TemplateScope): Decision {
  try {
    return decide(step, scope);
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    return {
      kind: 'failed',
      input: step.settings,
      error: `An expression failed: ${error.message}`,
    };
  }
}
