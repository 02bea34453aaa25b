import { placedSteps, type Step } from '@wap/contracts';

/** A workflow a step names: a failure route's (`onFailure: run_workflow`) or a call's. */
export interface WorkflowReference {
  kind: 'failure' | 'call';
  workflowId: string;
  /** Where, as an error path gives it: `body.steps.0.then.1.settings.workflowId`. */
  path: string;
}

type StepLike = Pick<Step, 'type' | 'settings' | 'onFailure'> & {
  then?: readonly StepLike[];
  else?: readonly StepLike[];
  cases?: readonly { steps: readonly StepLike[] }[];
  default?: readonly StepLike[];
  steps?: readonly StepLike[];
};

const calledIdOf = (step: Pick<StepLike, 'type' | 'settings'>): string | undefined => {
  const workflowId = step.type === 'call_workflow' ? step.settings['workflowId'] : undefined;
  return typeof workflowId === 'string' ? workflowId : undefined;
};

/** Every workflow the steps name, branches' and loops' steps included, in written order. */
export function workflowReferencesOf(steps: readonly StepLike[]): WorkflowReference[] {
  return placedSteps(steps).flatMap(({ step, path }): WorkflowReference[] => {
    const at = ['body', 'steps', ...path].join('.');
    const found: WorkflowReference[] = [];
    if (step.onFailure?.action === 'run_workflow') {
      found.push({
        kind: 'failure',
        workflowId: step.onFailure.workflowId,
        path: `${at}.onFailure.workflowId`,
      });
    }
    const called = calledIdOf(step);
    if (called !== undefined) {
      found.push({ kind: 'call', workflowId: called, path: `${at}.settings.workflowId` });
    }
    return found;
  });
}

/** The steps with each workflow they name replaced as `ids` says (an import's new ids). */
export function withWorkflowIds(steps: readonly Step[], ids: ReadonlyMap<string, string>): Step[] {
  const renamed = (id: string) => ids.get(id) ?? id;
  const each = (list: readonly Step[] | undefined) =>
    list ? withWorkflowIds(list, ids) : undefined;
  return steps.map((step) => {
    const called = calledIdOf(step);
    return {
      ...step,
      ...(called !== undefined
        ? { settings: { ...step.settings, workflowId: renamed(called) } }
        : {}),
      ...(step.onFailure?.action === 'run_workflow'
        ? { onFailure: { ...step.onFailure, workflowId: renamed(step.onFailure.workflowId) } }
        : {}),
      ...(step.then ? { then: each(step.then) } : {}),
      ...(step.else ? { else: each(step.else) } : {}),
      ...(step.cases
        ? {
            cases: step.cases.map((found) => ({
              ...found,
              steps: withWorkflowIds(found.steps, ids),
            })),
          }
        : {}),
      ...(step.default ? { default: each(step.default) } : {}),
      ...(step.steps ? { steps: each(step.steps) } : {}),
    };
  });
}

/** The most workflows a cycle check reads: a workspace's calls are not followed further. */
const MAX_CALL_CHAIN_LOOKUPS = 200;

/**
 * Whether calling `calledId` can come back to `callerId`: its calls, and theirs, as their newest
 * versions have them. `callsOf` gives the workflows one workflow calls.
 */
export async function callsComeBack(
  calledId: string,
  callerId: string,
  callsOf: (workflowId: string) => Promise<readonly string[]>,
): Promise<boolean> {
  const seen = new Set<string>();
  const queue = [calledId];
  while (queue.length > 0 && seen.size < MAX_CALL_CHAIN_LOOKUPS) {
    const next = queue.shift() ?? '';
    if (next === callerId) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(await callsOf(next)));
  }
  return false;
}
