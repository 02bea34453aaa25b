export { appPaths, useWorkspaceId, WORKSPACE_ROUTE_PATH } from './app-paths';
export { RecordFrame } from './record-frame';
export type { Feature, NavEntry } from './feature';
export { rememberReturnPath, takeReturnPath } from './return-path';
