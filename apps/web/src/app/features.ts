import { chatsFeature } from '../features/chats';
import { mcpFeature } from '../features/mcp';
import { contactsFeature } from '../features/contacts';
import { tablesFeature } from '../features/tables';
import { tasksFeature } from '../features/tasks';
import { workflowsFeature } from '../features/workflows';
import { approvalsFeature } from '../features/approvals';
import { workspaceFeature } from '../features/workspace';
import type { Feature } from '../lib/routing';

/**
 * Every feature of the app, in the order of the workspace navigation. A new area
 * (`src/features/<area>`) exports its `Feature` from its index and is added here.
 */
export const FEATURES: readonly Feature[] = [
  workspaceFeature,
  chatsFeature,
  workflowsFeature,
  approvalsFeature,
  mcpFeature,
  tablesFeature,
  tasksFeature,
  contactsFeature,
];
