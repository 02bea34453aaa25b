import type { Run, TestEvent } from '../api/workflows-api';
import { formatDateTime } from '../shared/labels';
import {
  stepVariables,
  TRIGGER_GROUP,
  triggerVariables,
  type VariableGroup,
} from '../schema-form/template-variables';

/** Where the editor's variables come from: a captured test event and the newest run. */
export interface VariableSources {
  testEvent: TestEvent | undefined;
  lastRun: Run | null | undefined;
}

/**
 * The groups a step's text settings offer: the test event's body, then each earlier step's
 * output in the last run (matched by the step's name, as `{{steps.<name>}}` is at run time).
 */
export function variableGroupsFor(
  sources: VariableSources,
  earlierStepNames: readonly string[],
): VariableGroup[] {
  const groups: VariableGroup[] = [];
  if (sources.testEvent) {
    groups.push({
      label: `${TRIGGER_GROUP} (test event of ${formatDateTime(sources.testEvent.received_at)})`,
      variables: triggerVariables(sources.testEvent.body),
    });
  }
  const ranSteps = sources.lastRun?.steps ?? [];
  for (const name of new Set(earlierStepNames)) {
    const ran = ranSteps.find((step) => step.name === name);
    if (ran) {
      groups.push({
        label: `Step "${name}" (last run)`,
        variables: stepVariables(name, ran.output),
      });
    }
  }
  return groups;
}
