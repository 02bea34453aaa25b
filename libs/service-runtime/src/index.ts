export { ServiceEnv } from './service-env';
export { runServiceProcess, type ServiceHandle } from './run-service';
export { withBusKeys, busKeysOf, type BusKeys } from './bus-keys';
export {
  createBusCredentials,
  type BusCredentials,
  type PrincipalEnvironment,
} from './bus-credentials';
