import type { RunFilter } from '@wap/contracts';

/**
 * The workflows feature's query keys. Everything about one workflow sits under
 * `workflowsKeys.workflow(id)`, so one invalidation refreshes its page, runs and schedule.
 */
export const workflowsKeys = {
  all: ['workflows'] as const,
  stepTypes: () => [...workflowsKeys.all, 'step-types'] as const,
  list: (workspaceId: string) => [...workflowsKeys.all, 'list', workspaceId] as const,
  workflow: (workflowId: string) => [...workflowsKeys.all, 'workflow', workflowId] as const,
  testEvents: (workflowId: string) =>
    [...workflowsKeys.workflow(workflowId), 'test-events'] as const,
  runs: (workflowId: string) => [...workflowsKeys.workflow(workflowId), 'runs'] as const,
  filteredRuns: (workflowId: string, filter: RunFilter) =>
    [...workflowsKeys.runs(workflowId), 'filtered', filter] as const,
  runBatches: (workflowId: string) => [...workflowsKeys.runs(workflowId), 'batches'] as const,
  schedule: (workflowId: string) => [...workflowsKeys.workflow(workflowId), 'schedule'] as const,
  versions: (workflowId: string) => [...workflowsKeys.workflow(workflowId), 'versions'] as const,
  scheduleFires: (workflowId: string) => [...workflowsKeys.schedule(workflowId), 'fires'] as const,
  lastRun: (workflowId: string) => [...workflowsKeys.runs(workflowId), 'last'] as const,
  tools: (workspaceId: string) => [...workflowsKeys.all, 'tools', workspaceId] as const,
  tables: (workspaceId: string) => [...workflowsKeys.all, 'tables', workspaceId] as const,
  providerAccounts: (workspaceId: string) =>
    [...workflowsKeys.all, 'provider-accounts', workspaceId] as const,
  providerDeliveries: (workspaceId: string) =>
    [...workflowsKeys.all, 'provider-deliveries', workspaceId] as const,
  credentials: (workspaceId: string) => [...workflowsKeys.all, 'credentials', workspaceId] as const,
  run: (runId: string) => [...workflowsKeys.all, 'run', runId] as const,
  permissions: (workspaceId: string) => [...workflowsKeys.all, 'permissions', workspaceId] as const,
};
