import { z } from 'zod';
import { childStepsOf, STEP_SETTINGS, type Step, type StepType } from '@wap/contracts';

/**
 * Credits one use of each step type costs. Steps that call out (HTTP, tools, tables) cost
 * credits; the assistant costs most; waiting (delay, approval) is free.
 */
export const STEP_PRICES: Readonly<Record<StepType, number>> = {
  http_request: 1,
  delay: 0,
  mcp_tool: 2,
  assistant_prompt: 5,
  approval: 0,
  table_row: 1,
  // Control steps are free: the steps they run are charged as they run.
  if: 0,
  switch: 0,
  for_each: 0,
  call_workflow: 0,
  set: 0,
  stop: 0,
};

/**
 * Credits one run of a workflow with these steps needs, at least: a branch counts as its
 * dearest, a loop's steps once (a list may be empty; each iteration is charged as it runs), a
 * called workflow's steps not at all (its run is checked on its own).
 */
export function creditCostOf(steps: readonly Step[]): number {
  return steps.reduce((sum, step) => {
    const lists = childStepsOf(step).map((child) => creditCostOf(child.steps));
    return sum + STEP_PRICES[step.type] + (lists.length > 0 ? Math.max(...lists) : 0);
  }, 0);
}

/** The catalog of GET /workflows/step-types. */
export function stepTypeCatalog() {
  return (Object.keys(STEP_SETTINGS) as StepType[]).map((type) => ({
    type,
    credit_price: STEP_PRICES[type],
    settings_schema: z.toJSONSchema(STEP_SETTINGS[type], { io: 'input' }) as Record<
      string,
      unknown
    >,
  }));
}
