import { childStepsOf, type Step } from '@wap/contracts';
import type { RunStepRow } from './run-rows';
import type { StepPolicy } from './step-policy';

/**
 * A workflow's steps as a run's rows: written in order, a step before the steps of its branches
 * (decision 165). A branch's rows name the if or switch they are in and the branch; a for_each's
 * steps are not rows of the run: its row keeps them, and each iteration is a run of its own.
 */
export interface StepRowDraft {
  name: string;
  type: Step['type'];
  /** What executing the step reads: an if's condition, a switch's conditions, a loop's steps. */
  settings: Record<string, unknown>;
  policy: StepPolicy | null;
  parentIndex: number | null;
  branch: string | null;
}

/** The settings a control step's row keeps: what executing it reads, its branches' rows aside. */
function rowSettingsOf(step: Step): Record<string, unknown> {
  if (step.type === 'switch') return { cases: (step.cases ?? []).map((found) => found.when) };
  if (step.type === 'for_each') return { ...step.settings, steps: step.steps ?? [] };
  return step.settings;
}

/** A step's policies as its run keeps them; null when it has none. */
function policyOf({ retry, timeoutMs, onFailure }: Step): StepPolicy | null {
  if (retry === undefined && timeoutMs === undefined && onFailure === undefined) return null;
  return { retry, timeoutMs, onFailure };
}

export function stepRowsOf(steps: readonly Step[]): StepRowDraft[] {
  const rows: StepRowDraft[] = [];
  const add = (list: readonly Step[], parentIndex: number | null, branch: string | null) => {
    for (const step of list) {
      const index = rows.length;
      rows.push({
        name: step.name,
        type: step.type,
        settings: rowSettingsOf(step),
        policy: policyOf(step),
        parentIndex,
        branch,
      });
      if (step.type === 'for_each') continue;
      for (const child of childStepsOf(step)) add(child.steps, index, child.branch);
    }
  };
  add(steps, null, null);
  return rows;
}

/** The branch an if or switch took, as its output says. */
function branchTaken(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { branch } = output as { branch?: unknown };
  return typeof branch === 'string' ? branch : undefined;
}

/**
 * Whether a row is in a branch its run did not take (or cannot take: the if failed), so that it
 * never runs. A row's if or switch comes before it, so it has ended by the time the row is reached.
 */
export function onUntakenBranch(
  rows: readonly Pick<RunStepRow, 'status' | 'output' | 'parentIndex' | 'branch'>[],
  row: Pick<RunStepRow, 'parentIndex' | 'branch'>,
): boolean {
  if (row.parentIndex === null) return false;
  const parent = rows[row.parentIndex];
  if (!parent) return false;
  switch (parent.status) {
    case 'succeeded':
      return branchTaken(parent.output) !== row.branch;
    case 'skipped':
      return onUntakenBranch(rows, parent);
    case 'failed':
      return true;
    default:
      return false;
  }
}
