export { workflowsFeature } from './workflows-feature';
