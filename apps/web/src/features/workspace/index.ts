export { workspaceFeature } from './workspace-feature';
export { WorkspaceSwitcher } from './shell/workspace-switcher';
export { AccountMenu } from './shell/account-menu';
export { useAuthors, useMe, useMembers, findWorkspace, type Member } from './api/workspace-api';
