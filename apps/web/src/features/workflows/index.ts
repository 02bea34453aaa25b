export { workflowsFeature } from './workflows-feature';
export { workflowsKeys } from './api/workflows-keys';
