export { tasksFeature } from './tasks-feature';
