export { approvalsFeature } from './approvals-feature';
