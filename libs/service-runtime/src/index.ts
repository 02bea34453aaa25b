export { ServiceEnv } from './service-env';
export { runServiceProcess, type ServiceHandle } from './run-service';
