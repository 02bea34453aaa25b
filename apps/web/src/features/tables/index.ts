export { tablesFeature } from './tables-feature';
