import type { Feature } from '../../lib/routing';

/**
 * Workflows: the list, the editor (steps in forms generated from the step types' JSON
 * Schemas), the webhook address and its test events, runs, and the schedule. Every page is a
 * lazy chunk.
 */
export const workflowsFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'workflows',
      lazy: async () => ({ Component: (await import('./list/workflows-page')).WorkflowsPage }),
    },
    {
      path: 'workflows/new',
      lazy: async () => ({
        Component: (await import('./editor/new-workflow-page')).NewWorkflowPage,
      }),
    },
    {
      path: 'workflows/:workflowId',
      lazy: async () => ({ Component: (await import('./editor/workflow-page')).WorkflowPage }),
    },
    {
      path: 'workflows/:workflowId/runs',
      lazy: async () => ({ Component: (await import('./runs/runs-page')).RunsPage }),
    },
    {
      path: 'workflows/:workflowId/runs/:runId',
      lazy: async () => ({ Component: (await import('./runs/run-page')).RunPage }),
    },
    {
      path: 'workflows/:workflowId/history',
      lazy: async () => ({ Component: (await import('./history/history-page')).HistoryPage }),
    },
    {
      path: 'workflows/:workflowId/schedule',
      lazy: async () => ({ Component: (await import('./schedule/schedule-page')).SchedulePage }),
    },
    {
      path: 'provider-events',
      lazy: async () => ({
        Component: (await import('./provider-events/provider-events-page')).ProviderEventsPage,
      }),
    },
    {
      path: 'credentials',
      lazy: async () => ({
        Component: (await import('./credentials/credentials-page')).CredentialsPage,
      }),
    },
  ],
  navEntries: [
    { label: 'Workflows', path: 'workflows' },
    { label: 'Provider events', path: 'provider-events' },
    { label: 'Credentials', path: 'credentials' },
  ],
};
