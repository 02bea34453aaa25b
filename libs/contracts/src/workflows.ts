import { defineRoutes } from './route-spec';

/** The REST routes of workflow-runner (workflows, runs, test events). */
export const workflowRoutes = defineRoutes([] as const);
