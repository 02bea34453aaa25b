export { tablesFeature } from './tables-feature';
export { useTable, type TableWithProperties } from './api/tables-api';
