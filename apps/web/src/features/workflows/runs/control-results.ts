import type { StepRun } from '../api/workflows-api';

/** A branch as the run page names it: `then`, `else`, `case:1` (the second case), `default`. */
export function branchLabel(branch: string): string {
  const found = /^case:(\d+)$/.exec(branch);
  if (found) return `case ${Number(found[1]) + 1}`;
  return branch;
}

/** How deep a step sits in branches, from the rows it is in (0 at the top). */
export function nestingOf(steps: readonly Pick<StepRun, 'parent_index'>[], index: number): number {
  let depth = 0;
  let parent = steps[index]?.parent_index ?? null;
  while (parent !== null && depth < steps.length) {
    depth += 1;
    parent = steps[parent]?.parent_index ?? null;
  }
  return depth;
}

/** The iterations a for_each's output lists, in item order: each one's run. */
export function iterationsOf(output: unknown): { index: number; runId: string }[] {
  if (typeof output !== 'object' || output === null) return [];
  const { iterations } = output as { iterations?: unknown };
  if (!Array.isArray(iterations)) return [];
  return iterations.flatMap((iteration: unknown) => {
    const { index, run_id: runId } = (iteration ?? {}) as { index?: unknown; run_id?: unknown };
    return typeof index === 'number' && typeof runId === 'string' ? [{ index, runId }] : [];
  });
}

/** The run a call_workflow started, from its output. */
export function calledRunOf(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const { run_id: runId } = output as { run_id?: unknown };
  return typeof runId === 'string' ? runId : undefined;
}
