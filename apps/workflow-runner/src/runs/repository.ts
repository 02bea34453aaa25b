import { cancelIdleRun, isRunCancelRequested, requestRunCancel } from './run-cancel';
import {
  calledRunResult,
  createCalledRunWithinBudget,
  insertIterationsWithinBudget,
  inheritedScopeOf,
  iterationError,
  loopCounts,
  loopOutput,
  releaseWaitingRun,
  startIterations,
} from './run-children';
import { createRuns } from './run-creation';
import { createRetryRun } from './run-retry';
import {
  claimDueRuns,
  extendRunLeases,
  releaseHeldRuns,
  releaseRun,
  renewRunLease,
} from './run-leases';
import { markRunRunning, writeRunProgress } from './run-progress';
import {
  countRunsOfWorkflow,
  deleteRunsEndedBefore,
  findRunByEvent,
  getRun,
  listRunsOfWorkflow,
  retriesOfRun,
  unfinishedRunsHoldingInflightKeys,
} from './run-queries';
import type { NewRun, RunStore } from './run-rows';
import {
  awaitRunApproval,
  endRunStep,
  failRunStepWithRefund,
  scheduleRunStepRetry,
  setRunStepCharge,
  setRunStepResumeAt,
  startRunStep,
} from './run-step-writes';

/**
 * The runs and their steps in the database, for the executor, the consumers and the API: each
 * method is a function of `run-creation`, `run-queries`, `run-leases`, `run-progress`,
 * `run-step-writes`, `run-cancel` or `run-retry`, where its contract is documented, bound to the store.
 */
export function createRunRepository(store: RunStore) {
  const bound =
    <Args extends unknown[], Result>(operation: (store: RunStore, ...args: Args) => Result) =>
    (...args: Args): Result =>
      operation(store, ...args);
  return {
    createMany: bound(createRuns),
    /** One run; false when a run with this id exists already. */
    create: async (input: NewRun) => (await createRuns(store, [input])).length > 0,
    get: bound(getRun),
    retriesOf: bound(retriesOfRun),
    findByEvent: bound(findRunByEvent),
    listByWorkflow: bound(listRunsOfWorkflow),
    countByWorkflow: bound(countRunsOfWorkflow),
    unfinishedHoldingInflightKeys: bound(unfinishedRunsHoldingInflightKeys),
    deleteEndedBefore: bound(deleteRunsEndedBefore),
    claimDue: bound(claimDueRuns),
    renewLease: bound(renewRunLease),
    extendLeases: bound(extendRunLeases),
    releaseHeld: bound(releaseHeldRuns),
    release: bound(releaseRun),
    writeProgress: bound(writeRunProgress),
    markRunning: bound(markRunRunning),
    startStep: bound(startRunStep),
    setStepCharge: bound(setRunStepCharge),
    endStep: bound(endRunStep),
    failStepWithRefund: bound(failRunStepWithRefund),
    setStepResumeAt: bound(setRunStepResumeAt),
    scheduleStepRetry: bound(scheduleRunStepRetry),
    awaitApproval: bound(awaitRunApproval),
    cancelIdle: bound(cancelIdleRun),
    requestCancel: bound(requestRunCancel),
    isCancelRequested: bound(isRunCancelRequested),
    createRetry: bound(createRetryRun),
    insertIterationsWithinBudget: bound(insertIterationsWithinBudget),
    createCalledRunWithinBudget: bound(createCalledRunWithinBudget),
    loopCounts: bound(loopCounts),
    startIterations: bound(startIterations),
    loopOutput: bound(loopOutput),
    iterationError: bound(iterationError),
    calledRunResult: bound(calledRunResult),
    releaseWaiting: bound(releaseWaitingRun),
    inheritedScope: bound(inheritedScopeOf),
  };
}

export type RunRepository = ReturnType<typeof createRunRepository>;
