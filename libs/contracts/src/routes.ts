import { chatRoutes } from './chat';
import { creditRoutes } from './credits';
import { directoryRoutes } from './directory';
import { extensionTokenRoutes } from './extension-tokens';
import { mcpRoutes } from './mcp';
import { providerEventRoutes } from './provider-events';
import { runBatchRoutes } from './run-batches';
import { workflowDocumentRoutes } from './workflow-documents';
import { workflowVersionRoutes } from './workflow-versions';
import type { RouteSpec } from './route-spec';
import { webhookRoutes } from './webhooks';
import { workflowRoutes } from './workflows';
import { workflowAccessRoutes } from './workflow-access';
import { workspaceCredentialRoutes } from './workspace-credentials';
import { approvalRoutes } from './approvals';
import { scheduleRoutes } from './schedules';
import { taskRoutes, workspaceDataRoutes } from './workspace-data';

/** Every REST route the gateway serves from the bus, in one table. */
export const ROUTES = [
  ...directoryRoutes,
  ...extensionTokenRoutes,
  ...creditRoutes,
  ...workflowRoutes,
  ...runBatchRoutes,
  ...workflowVersionRoutes,
  ...workflowDocumentRoutes,
  ...workflowAccessRoutes,
  ...workspaceCredentialRoutes,
  ...webhookRoutes,
  ...providerEventRoutes,
  ...mcpRoutes,
  ...workspaceDataRoutes,
  ...taskRoutes,
  ...scheduleRoutes,
  ...approvalRoutes,
  ...chatRoutes,
] as const satisfies readonly RouteSpec[];
