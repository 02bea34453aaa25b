import { AppError, placedSteps, type Step, BUS_APIS } from '@wap/contracts';
import { BusTimeoutError, NoRespondersError, type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';

/** How long a Run or a set-live waits to learn whether the assistant has a model. */
const MODEL_CHECK_TIMEOUT_MS = 2_000;

/**
 * A workflow with an `assistant_prompt` step cannot run without a language model: it is refused
 * when it is run or set live, rather than charged for a step that must fail (decision 127).
 * When the chat service does not answer, the run goes ahead: the step then fails with a clear
 * error and is refunded.
 */
export function createModelRequirement(deps: { bus: Bus }) {
  return async function requireModelFor(steps: readonly Step[]): Promise<void> {
    const asking = placedSteps(steps).find(({ step }) => step.type === 'assistant_prompt');
    if (!asking) return;
    const reply = await callApi(
      deps.bus,
      BUS_APIS.assistantModel,
      {},
      {
        timeoutMs: MODEL_CHECK_TIMEOUT_MS,
      },
    ).catch((error: unknown) => {
      if (error instanceof NoRespondersError || error instanceof BusTimeoutError) return null;
      throw error;
    });
    if (reply && !reply.configured) {
      throw new AppError(
        'MODEL_NOT_CONFIGURED',
        `The step "${asking.step.name}" asks the assistant, and no language model is configured (set LLM_BASE_URL and LLM_MODEL on the chat service)`,
      );
    }
  };
}

export type ModelRequirement = ReturnType<typeof createModelRequirement>;
