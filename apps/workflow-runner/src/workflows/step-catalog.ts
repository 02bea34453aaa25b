import { z } from 'zod';
import { STEP_SETTINGS, type Step, type StepType } from '@wap/contracts';

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
};

/** Credits one run of a workflow with these steps needs. */
export function creditCostOf(steps: readonly Pick<Step, 'type'>[]): number {
  return steps.reduce((sum, step) => sum + STEP_PRICES[step.type], 0);
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
