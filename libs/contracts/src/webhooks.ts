import { defineRoutes } from './route-spec';

/** The REST routes of webhook-ingest (the Custom Webhook trigger and signed provider webhooks). */
export const webhookRoutes = defineRoutes([] as const);
