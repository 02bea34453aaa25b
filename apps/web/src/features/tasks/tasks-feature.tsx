import type { Feature } from '../../lib/routing';

/** Tasks: comments with attached files uploaded with progress. Every page is lazy. */
export const tasksFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'tasks',
      lazy: async () => ({ Component: (await import('./list/tasks-page')).TasksPage }),
    },
    {
      path: 'tasks/:taskId',
      lazy: async () => ({ Component: (await import('./task/task-page')).TaskPage }),
    },
  ],
  navEntries: [{ label: 'Tasks', path: 'tasks' }],
};
