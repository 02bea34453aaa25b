export { ServiceEnv } from './service-env';
export { runServiceProcess, type ServiceHandle } from './run-service';
export { withBusKeys, busKeysOf } from './bus-keys';
export { createBusCredentials, type BusCredentials } from './bus-credentials';
