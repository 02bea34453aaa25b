import type { Feature } from '../../lib/routing';

/** Tables: typed columns, paged rows and the split-name action. Every page is lazy. */
export const tablesFeature: Feature = {
  workspaceRoutes: [
    {
      path: 'tables',
      lazy: async () => ({ Component: (await import('./list/tables-page')).TablesPage }),
    },
    {
      path: 'tables/:tableId',
      lazy: async () => ({ Component: (await import('./table/table-page')).TablePage }),
    },
  ],
  navEntries: [{ label: 'Tables', path: 'tables' }],
};
