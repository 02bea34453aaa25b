export { tablesFeature } from './tables-feature';
export { useTable } from './api/tables-api';
