export { envBoolean, parseConfig, redactConfig } from './env';
